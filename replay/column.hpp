// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// An append-only column for the trace model: chunks that double from 64 to 65536 elements, then
// stay at 65536. An empty column allocates nothing (traces declare up to millions of threads),
// growing never copies (no 2x peak as a vector has), and the waste is at most one chunk. An append
// writes at the last chunk's tail, kept beside the size: with thousands of columns written in turn
// (a program's threads), finding the chunk through the list cost a cache miss per element.
//
// Other bounds (2^FirstBits to 2^LastBits elements) serve many small columns: the streaming
// replay writes each thread's program into four, which drain() then moves into the program
// (replay/streaming/program_recorder.hpp).
#include <algorithm>
#include <bit>
#include <cstddef>
#include <iterator>
#include <memory>
#include <utility>
#include <vector>

namespace popsim::replay {

template <class T, std::size_t FirstBits = 6, std::size_t LastBits = 16> class Column {
    static_assert(FirstBits <= LastBits);
    static constexpr std::size_t k_first_bits = FirstBits;
    static constexpr std::size_t k_last_bits = LastBits;
    static constexpr std::size_t k_first = std::size_t{1} << k_first_bits;
    static constexpr std::size_t k_growing_chunks = k_last_bits - k_first_bits + 1;
    static constexpr std::size_t k_growing_total =
        k_first * ((std::size_t{1} << k_growing_chunks) - 1);
    static constexpr std::size_t k_last = std::size_t{1} << k_last_bits;

  public:
    class const_iterator {
      public:
        using iterator_category = std::random_access_iterator_tag;
        using value_type = T;
        using difference_type = std::ptrdiff_t;
        using pointer = const T*;
        using reference = const T&;

        const_iterator() = default;
        const_iterator(const Column* c, std::size_t i) : column_(c), index_(i) {}
        reference operator*() const { return (*column_)[index_]; }
        reference operator[](difference_type n) const {
            return (*column_)[index_ + static_cast<std::size_t>(n)];
        }
        const_iterator& operator++() { return ++index_, *this; }
        const_iterator operator++(int) {
            auto old = *this;
            ++index_;
            return old;
        }
        const_iterator& operator--() { return --index_, *this; }
        const_iterator operator--(int) {
            auto old = *this;
            --index_;
            return old;
        }
        const_iterator& operator+=(difference_type n) {
            return index_ += static_cast<std::size_t>(n), *this;
        }
        const_iterator& operator-=(difference_type n) {
            return index_ -= static_cast<std::size_t>(n), *this;
        }
        friend const_iterator operator+(const_iterator it, difference_type n) { return it += n; }
        friend const_iterator operator+(difference_type n, const_iterator it) { return it += n; }
        friend const_iterator operator-(const_iterator it, difference_type n) { return it -= n; }
        friend difference_type operator-(const const_iterator& a, const const_iterator& b) {
            return static_cast<difference_type>(a.index_) - static_cast<difference_type>(b.index_);
        }
        friend bool operator==(const const_iterator& a, const const_iterator& b) {
            return a.index_ == b.index_;
        }
        friend auto operator<=>(const const_iterator& a, const const_iterator& b) {
            return a.index_ <=> b.index_;
        }

      private:
        const Column* column_ = nullptr;
        std::size_t index_ = 0;
    };

    /// Reads a column by index, keeping the chunk it last read: a read in that chunk costs one
    /// comparison instead of locating the chunk. For walks that stay in a region, like the replay's
    /// call lookups (one third faster than operator[] there).
    class Reader {
      public:
        explicit Reader(const Column& c) : column_(&c) {}
        const T& operator[](std::size_t i) {
            if (i - first_ >= length_) enter_chunk_of(i); // also when i < first_ (wraps around)
            return data_[i - first_];
        }

      private:
        void enter_chunk_of(std::size_t i) {
            const auto [chunk, offset] = locate(i);
            first_ = i - offset;
            length_ = chunk_size(chunk);
            data_ = column_->chunks_[chunk].get();
        }
        const Column* column_;
        std::size_t first_ = 0, length_ = 0;
        const T* data_ = nullptr;
    };

    Column() = default;
    // A moved-from column is empty, its tail with it.
    Column(Column&& other) noexcept
        : chunks_(std::move(other.chunks_)), size_(std::exchange(other.size_, 0)),
          tail_(std::exchange(other.tail_, nullptr)) {
        other.chunks_.clear();
    }
    Column& operator=(Column&& other) noexcept {
        chunks_ = std::move(other.chunks_);
        other.chunks_.clear();
        size_ = std::exchange(other.size_, 0);
        tail_ = std::exchange(other.tail_, nullptr);
        return *this;
    }

    std::size_t size() const { return size_; }
    bool empty() const { return size_ == 0; }

    void push_back(const T& value) {
        if (locate(size_).offset == 0) [[unlikely]] { // a chunk is full: the next one
            chunks_.push_back(std::make_unique_for_overwrite<T[]>(chunk_size(chunks_.size())));
            tail_ = chunks_.back().get();
        }
        *tail_++ = value;
        ++size_;
    }

    T& operator[](std::size_t i) {
        const auto [chunk, offset] = locate(i);
        return chunks_[chunk][offset];
    }
    const T& operator[](std::size_t i) const {
        const auto [chunk, offset] = locate(i);
        return chunks_[chunk][offset];
    }
    T& back() { return (*this)[size_ - 1]; }
    const T& back() const { return (*this)[size_ - 1]; }

    /// Hands each element, with its index, to `visit` in order, giving each chunk back once
    /// visited and telling `freed(bytes)` how much; the column is then empty.
    template <class Visit, class Freed> void drain(Visit visit, Freed&& freed) {
        std::size_t i = 0;
        for (std::size_t c = 0; c < chunks_.size(); ++c) {
            const std::size_t n = std::min(chunk_size(c), size_ - i);
            for (std::size_t k = 0; k < n; ++k, ++i) visit(i, chunks_[c][k]);
            chunks_[c].reset();
            freed(chunk_size(c) * sizeof(T));
        }
        *this = Column();
    }

    const_iterator begin() const { return {this, 0}; }
    const_iterator end() const { return {this, size_}; }

    friend bool operator==(const Column& a, const Column& b) {
        if (a.size_ != b.size_) return false;
        for (std::size_t i = 0; i < a.size_; ++i)
            if (!(a[i] == b[i])) return false;
        return true;
    }

  private:
    struct Place {
        std::size_t chunk;
        std::size_t offset;
    };

    static Place locate(std::size_t i) {
        if (i < k_growing_total) { // chunk c holds k_first << c elements and starts at k_first *
                                   // (2^c - 1)
            const std::size_t c = static_cast<std::size_t>(std::bit_width(i / k_first + 1)) - 1;
            return {c, i - k_first * ((std::size_t{1} << c) - 1)};
        }
        const std::size_t j = i - k_growing_total;
        return {k_growing_chunks + j / k_last, j % k_last};
    }

    static std::size_t chunk_size(std::size_t chunk) {
        return chunk < k_growing_chunks ? k_first << chunk : k_last;
    }

    std::vector<std::unique_ptr<T[]>> chunks_;
    std::size_t size_ = 0;
    T* tail_ = nullptr; // where the next element goes, in the last chunk
};

} // namespace popsim::replay
