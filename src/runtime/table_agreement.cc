#include "runtime/table_agreement.h"

#include <cinttypes>
#include <cstdio>
#include <cstring>

#include "select/selector.h"

namespace flashccl {

namespace {

std::string identityText(const TableIdentity& identity) {
  char hash[32];
  std::snprintf(hash, sizeof(hash), "%016" PRIx64, identity.hash);
  const std::string name(identity.name, strnlen(identity.name, sizeof(identity.name)));
  return "'" + (name.empty() ? std::string("none") : name) + "' (content " + hash + ")";
}

}  // namespace

TableIdentity tableIdentityOf(const Selector* selector) {
  TableIdentity identity;
  std::memset(static_cast<void*>(&identity), 0, sizeof(identity));
  if (selector == nullptr) return identity;
  identity.hash = selector->tableHash();
  std::snprintf(identity.name, sizeof(identity.name), "%s", selector->tableName().c_str());
  return identity;
}

std::string tableDisagreement(int rank, const TableIdentity& theirs, const TableIdentity& first) {
  if (theirs.hash == first.hash) return "";
  return "rank " + std::to_string(rank) + " selects from the table " + identityText(theirs) + " but rank 0 from " +
         identityText(first) +
         " (a calibrated table in one rank's cache, FLASHCCL_TABLE_DIR or FLASHCCL_TOPO_FILE differ); every "
         "rank stays on NCCL for this communicator";
}

}  // namespace flashccl
