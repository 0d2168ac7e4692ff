// FLASHCCL_SOFTBOND_RAILS: which interfaces form which bond.
//
//   eth0,eth1;eth2,eth3     two bonds (NCCL devices) of two rails each
//   ens1f0,ens1f1           one bond of two rails
//   lo,lo                   one bond of two rails on the same interface (tests on one machine)
//
// ';' separates bonds, ',' separates the rails of a bond. A bond has 1 to 4 rails (the rail count
// travels in the connection handle); an interface may be named more than once.
#pragma once

#include <string>
#include <vector>

namespace flashccl::softbond {

constexpr int kMaxRailsPerBond = 4;
constexpr int kMaxBonds = 16;

// Returns false with *error set when the text does not follow the syntax above.
bool parseRailSpec(const std::string& text, std::vector<std::vector<std::string>>* bonds, std::string* error);

// NCCL_SOCKET_IFNAME-style interface filter, used when the rails are chosen automatically:
// comma-separated prefixes, "^" before the list excludes, "=" before it asks for exact names.
class InterfaceFilter {
 public:
  explicit InterfaceFilter(const std::string& spec);
  bool matches(const std::string& name) const;

 private:
  std::vector<std::string> names_;
  bool exclude_ = false;
  bool exact_ = false;
};

}  // namespace flashccl::softbond
