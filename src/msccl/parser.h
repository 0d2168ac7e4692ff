// MSCCL algorithm XML -> Program (msccl-format.md §1), with pugixml.
//
// Accepts everything the reference executor (EX) accepts: TL-generated files, the reference test
// vectors, comments, self-closing steps, extra elements and attributes (ignored, as in EX), and
// integers the way strtol(s, NULL, 0) reads them (0x.. hex, a leading 0 octal).
// pugixml is more permissive than EX's hand-written tokenizer, and we keep that: tabs between
// elements, an <?xml ...?> declaration, attributes spread over several lines, single quotes and
// CRLF line ends are all fine here although EX rejects them.
// Deliberately stricter than EX: an integer attribute must be an integer (EX reads "abc" as 0 and
// "08" or "12x" as a prefix), and the 0/1 flags (hasdep, inplace, outofplace) must be 0 or 1.
//
// The parser checks form (XML syntax, every required attribute present, integers, the names of
// step types, buffers, protocols and collectives) and decodes transmissions (decoder.h); what
// the values mean is validateProgram()'s job. Errors are `file:line: what is wrong`; pugixml
// gives byte offsets, converted to lines. A problem with an attribute is reported at the line
// where its element starts.
#pragma once

#include <nccl.h>

#include <cstdint>
#include <string>

#include "msccl/diagnostic.h"
#include "msccl/program.h"

namespace flashccl::msccl {

// ncclSuccess, ncclSystemError (cannot read the file) or ncclInvalidUsage (bad content); on
// failure *error says why and *program is unspecified.
ncclResult_t parseProgramFile(const std::string& path, Program* program, Diagnostic* error);

// Same, for XML text already in memory; `name` stands in for the path in messages.
ncclResult_t parseProgramString(const std::string& xml, const std::string& name, Program* program,
                                Diagnostic* error);

// An integer as strtol(text, NULL, 0) reads it (decimal, 0x hex, leading-0 octal, optional
// sign), but all of it: surrounding whitespace is allowed, anything else is not.
bool parseXmlInteger(const char* text, int64_t* value);

}  // namespace flashccl::msccl
