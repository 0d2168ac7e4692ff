// The <tuning> section of a topologies/*.xml file, or a file holding only a <tuning> section:
//
//   <tuning nodes="1">
//     <group coll="allreduce" ranks="8">
//       <row maxBytes="64K" algorithm="tree" protocol="ll" channels="4"/>
//       <row minBytes="64K" algorithm="ring" protocol="simple"/>
//     </group>
//     <row coll="broadcast" algorithm="nccl" channels="8"/>
//   </tuning>
//
// docs/tuner.md describes every element and attribute.
#pragma once

#include <string>

#include "tuning_table.h"

namespace flashccl {

// Parses `text` as the contents of `path` (named in messages and row sources). The root is either
// <tuning>, or <topology> — then the whole file must be valid as flashccl reads it, and its
// <tuning> child, if any, is the table. On success *hasSection says whether there was a <tuning>
// section at all. On failure returns false with *error = "path:line: message".
bool parseTuningText(const std::string& text, const std::string& path, TuningTable* out,
                     bool* hasSection, std::string* error);
bool parseTuningFile(const std::string& path, TuningTable* out, bool* hasSection,
                     std::string* error);

}  // namespace flashccl
