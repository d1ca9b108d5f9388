// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// A queue that grows as needed, its elements in one block: the replay's per-thread and per-link
// queues are pushed and popped millions of times, and an empty one allocates nothing (a trace has
// up to tens of thousands of ranks, most queues of which stay short or empty).
#include <algorithm>
#include <boost/circular_buffer.hpp>
#include <cstddef>

namespace popsim::replay {

template <class T> class Ring : public boost::circular_buffer<T> {
  public:
    /// A new last element, made with its defaults; the caller sets its fields in place (a copy
    /// of a struct just made on the stack stalls the processor on its narrow fields).
    T& emplace_back() {
        grow_if_full();
        boost::circular_buffer<T>::push_back(T{}); // (its default push_back leaves a pointer unset)
        return this->back();
    }
    void push_back(const T& value) {
        grow_if_full();
        boost::circular_buffer<T>::push_back(value);
    }
    /// `value` before element `index` (<= size()), the later ones moved back.
    void insert_at(std::size_t index, const T& value) {
        grow_if_full();
        boost::circular_buffer<T>::insert(this->begin() + static_cast<std::ptrdiff_t>(index),
                                          value);
    }
    /// (A full circular_buffer would drop its last element.)
    void push_front(const T& value) {
        grow_if_full();
        boost::circular_buffer<T>::push_front(value);
    }

  private:
    /// By half: a thread keeps a few dozen calls, and with tens of thousands of threads twice
    /// that held most of the replay's memory.
    void grow_if_full() {
        if (this->full())
            this->set_capacity(std::max<std::size_t>(4, this->capacity() + this->capacity() / 2));
    }
};

} // namespace popsim::replay
