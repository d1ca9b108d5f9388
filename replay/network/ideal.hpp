// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The ideal network of the POP Transfer/Serialisation metrics: zero latency, infinite bandwidth,
// no contention, CPUs as traced. Only the program's dependencies remain (Dimemas' ideal config).
#include "replay/network/network_model.hpp"

namespace popsim::replay::network {

class IdealNetwork final : public NetworkModel {
  public:
    std::string_view name() const override { return "ideal"; }
    Time transfer(const TransferRequest&, Time ready) override { return ready; }
    Time collective(CollectiveIndex, const Collective&, Time ready) override { return ready; }
    bool zero_cost() const override { return true; }
};

} // namespace popsim::replay::network
