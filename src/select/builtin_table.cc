#include "select/builtin_table.h"

namespace flashccl {

const SelectionTable& builtinSelectionTable() {
  static const SelectionTable table = [] {
    SelectionTable t;
    t.name = "built-in";
    return t;
  }();
  return table;
}

}  // namespace flashccl
