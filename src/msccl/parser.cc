#include "msccl/parser.h"

#include "base/hash.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "msccl/decoder.h"
#include "pugixml.hpp"

namespace flashccl::msccl {

bool parseXmlInteger(const char* text, int64_t* value) {
  if (text == nullptr) return false;
  const char* p = text;
  while (std::isspace(static_cast<unsigned char>(*p))) ++p;
  if (*p == '\0') return false;
  errno = 0;
  char* end = nullptr;
  long long v = std::strtoll(p, &end, 0);
  if (end == p || errno == ERANGE) return false;
  while (std::isspace(static_cast<unsigned char>(*end))) ++end;
  if (*end != '\0') return false;
  *value = v;
  return true;
}

namespace {

// Thrown inside this file only, caught at the entry points: keeps every attribute read one line.
struct ParseFailure {
  int line;
  std::string message;
};

class XmlText {
 public:
  explicit XmlText(const std::string& text) {
    for (size_t i = 0; i < text.size(); ++i) {
      if (text[i] == '\n') newlines_.push_back(i);
    }
  }
  // 1-based line of a byte offset.
  int lineOfOffset(ptrdiff_t offset) const {
    if (offset < 0) return 0;
    auto it = std::lower_bound(newlines_.begin(), newlines_.end(), static_cast<size_t>(offset));
    return static_cast<int>(it - newlines_.begin()) + 1;
  }
  int lineOf(const pugi::xml_node& node) const { return lineOfOffset(node.offset_debug()); }

 private:
  std::vector<size_t> newlines_;
};

class ProgramReader {
 public:
  explicit ProgramReader(const XmlText& text) : text_(text) {}

  const char* requiredString(const pugi::xml_node& node, const char* attr) const {
    pugi::xml_attribute a = node.attribute(attr);
    if (!a) {
      fail(node, formatString("<%s> is missing required attribute '%s'", node.name(), attr));
    }
    return a.value();
  }

  int64_t requiredInt64(const pugi::xml_node& node, const char* attr) const {
    const char* s = requiredString(node, attr);
    int64_t v = 0;
    if (!parseXmlInteger(s, &v)) {
      fail(node, formatString("attribute '%s' of <%s> is not an integer: '%s'", attr, node.name(), s));
    }
    return v;
  }

  int requiredInt(const pugi::xml_node& node, const char* attr) const {
    int64_t v = requiredInt64(node, attr);
    if (v < INT_MIN || v > INT_MAX) {
      fail(node, formatString("attribute '%s' of <%s> is out of range: '%s'", attr, node.name(),
                              node.attribute(attr).value()));
    }
    return static_cast<int>(v);
  }

  bool requiredFlag(const pugi::xml_node& node, const char* attr) const {
    int v = requiredInt(node, attr);
    if (v != 0 && v != 1) {
      fail(node, formatString("attribute '%s' of <%s> must be 0 or 1, got %d", attr, node.name(), v));
    }
    return v == 1;
  }

  [[noreturn]] void fail(const pugi::xml_node& node, std::string message) const {
    throw ParseFailure{text_.lineOf(node), std::move(message)};
  }

  int lineOf(const pugi::xml_node& node) const { return text_.lineOf(node); }

 private:
  const XmlText& text_;
};

Protocol readProtocol(const ProgramReader& rd, const pugi::xml_node& node) {
  const char* p = rd.requiredString(node, "proto");
  if (std::strcmp(p, "Simple") == 0) return Protocol::kSimple;
  if (std::strcmp(p, "LL") == 0) return Protocol::kLL;
  if (std::strcmp(p, "LL128") == 0) return Protocol::kLL128;
  rd.fail(node, formatString("unknown protocol '%s' (expected Simple, LL or LL128)", p));
}

// Every collective name EX (and the MSCCL prototype) knows; only three map to a CollKind.
void readCollective(const ProgramReader& rd, const pugi::xml_node& node, Program* prog) {
  const char* c = rd.requiredString(node, "coll");
  prog->collName = c;
  if (std::strcmp(c, "allreduce") == 0) {
    prog->coll = CollKind::kAllReduce;
  } else if (std::strcmp(c, "allgather") == 0) {
    prog->coll = CollKind::kAllGather;
  } else if (std::strcmp(c, "reducescatter") == 0 || std::strcmp(c, "reduce_scatter") == 0) {
    prog->coll = CollKind::kReduceScatter;
  } else {
    static const char* const kOthers[] = {"reduce",  "broadcast", "alltoall", "send", "recv",
                                          "gather",  "scatter",   "alltoallv", "custom"};
    bool known = false;
    for (const char* other : kOthers) known = known || std::strcmp(c, other) == 0;
    if (!known) rd.fail(node, formatString("unknown collective '%s'", c));
    prog->coll.reset();
  }
}

BufferKind readBuffer(const ProgramReader& rd, const pugi::xml_node& node, const char* attr) {
  const char* b = rd.requiredString(node, attr);
  if (std::strcmp(b, "i") == 0) return BufferKind::kInput;
  if (std::strcmp(b, "o") == 0) return BufferKind::kOutput;
  if (std::strcmp(b, "s") == 0) return BufferKind::kScratch;
  rd.fail(node, formatString("unknown buffer '%s' in %s (expected i, o or s)", b, attr));
}

StepType readStepType(const ProgramReader& rd, const pugi::xml_node& node) {
  const char* t = rd.requiredString(node, "type");
  static const StepType kTypes[] = {
      StepType::kSend,          StepType::kRecv,           StepType::kRecvCopySend,
      StepType::kRecvReduceSend, StepType::kRecvReduceCopy, StepType::kRecvReduceCopySend,
      StepType::kCopy,          StepType::kReduce,         StepType::kNop};
  for (StepType type : kTypes) {
    if (std::strcmp(t, stepTypeName(type)) == 0) return type;
  }
  if (std::strcmp(t, "ra") == 0) {
    rd.fail(node, "unknown step type 'ra' (the MSCCL prototype's residual add; the executor "
                  "does not implement it)");
  }
  rd.fail(node, formatString("unknown step type '%s' (expected s, r, rcs, rrs, rrc, rrcs, cpy, "
                             "re or nop)", t));
}

Step readStep(const ProgramReader& rd, const pugi::xml_node& node) {
  Step st;
  st.line = rd.lineOf(node);
  st.s = rd.requiredInt(node, "s");
  st.type = readStepType(rd, node);
  st.srcBuf = readBuffer(rd, node, "srcbuf");
  st.srcOff = rd.requiredInt(node, "srcoff");
  st.dstBuf = readBuffer(rd, node, "dstbuf");
  st.dstOff = rd.requiredInt(node, "dstoff");
  st.count = rd.requiredInt(node, "cnt");
  st.depTb = rd.requiredInt(node, "depid");
  st.depStep = rd.requiredInt(node, "deps");
  st.hasDep = rd.requiredFlag(node, "hasdep");
  return st;
}

ThreadBlock readThreadBlock(const ProgramReader& rd, const pugi::xml_node& node) {
  ThreadBlock tb;
  tb.line = rd.lineOf(node);
  tb.id = rd.requiredInt(node, "id");
  tb.sendPeer = rd.requiredInt(node, "send");
  tb.recvPeer = rd.requiredInt(node, "recv");
  tb.channel = rd.requiredInt(node, "chan");
  for (pugi::xml_node child : node.children("step")) tb.steps.push_back(readStep(rd, child));
  tb.transmissions = decodeThreadBlock(tb.steps, nullptr);
  return tb;
}

Gpu readGpu(const ProgramReader& rd, const pugi::xml_node& node) {
  Gpu gpu;
  gpu.line = rd.lineOf(node);
  gpu.id = rd.requiredInt(node, "id");
  gpu.inputChunks = rd.requiredInt(node, "i_chunks");
  gpu.outputChunks = rd.requiredInt(node, "o_chunks");
  gpu.scratchChunks = rd.requiredInt(node, "s_chunks");
  for (pugi::xml_node child : node.children("tb")) gpu.threadBlocks.push_back(readThreadBlock(rd, child));
  // Index == id for valid files; the validator reports gaps and duplicates by line.
  std::stable_sort(gpu.threadBlocks.begin(), gpu.threadBlocks.end(),
                   [](const ThreadBlock& a, const ThreadBlock& b) { return a.id < b.id; });
  return gpu;
}

void readAlgo(const ProgramReader& rd, const pugi::xml_node& node, Program* prog) {
  prog->line = rd.lineOf(node);
  prog->name = node.attribute("name").value();  // free text, not read by EX: optional
  prog->proto = readProtocol(rd, node);
  readCollective(rd, node, prog);
  prog->nchannels = rd.requiredInt(node, "nchannels");
  prog->nchunksperloop = rd.requiredInt(node, "nchunksperloop");
  prog->ngpus = rd.requiredInt(node, "ngpus");
  prog->inplace = rd.requiredFlag(node, "inplace");
  prog->outofplace = rd.requiredFlag(node, "outofplace");
  prog->minBytes = rd.requiredInt64(node, "minBytes");
  prog->maxBytes = rd.requiredInt64(node, "maxBytes");
  for (pugi::xml_node child : node.children("gpu")) prog->gpus.push_back(readGpu(rd, child));
  std::stable_sort(prog->gpus.begin(), prog->gpus.end(),
                   [](const Gpu& a, const Gpu& b) { return a.id < b.id; });
}

}  // namespace

ncclResult_t parseProgramString(const std::string& xml, const std::string& name, Program* program,
                                Diagnostic* error) {
  *program = Program();
  program->file = name;
  program->sourceHash = fnv1a(kFnvOffset, xml.data(), xml.size());
  XmlText text(xml);
  pugi::xml_document doc;
  // No parse_eol: it would not change what we read (integers and names), and keeping the buffer
  // as it is keeps pugixml's offsets equal to positions in `xml`, which is what lines come from.
  const unsigned options = pugi::parse_default & ~pugi::parse_eol;
  pugi::xml_parse_result res = doc.load_buffer(xml.data(), xml.size(), options, pugi::encoding_utf8);
  if (!res) {
    *error = {name, text.lineOfOffset(res.offset),
              formatString("XML syntax error: %s", res.description())};
    return ncclInvalidUsage;
  }
  pugi::xml_node root = doc.first_child();
  while (root && root.type() != pugi::node_element) root = root.next_sibling();
  if (!root) {
    *error = {name, 0, "no <algo> element"};
    return ncclInvalidUsage;
  }
  ProgramReader rd(text);
  try {
    // EX reads its metadata from the first element only, so <algo> must come first.
    if (std::strcmp(root.name(), "algo") != 0) {
      rd.fail(root, formatString("the first element must be <algo>, found <%s>", root.name()));
    }
    readAlgo(rd, root, program);
  } catch (const ParseFailure& f) {
    *error = {name, f.line, f.message};
    return ncclInvalidUsage;
  }
  return ncclSuccess;
}

ncclResult_t parseProgramFile(const std::string& path, Program* program, Diagnostic* error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    *error = {path, 0, formatString("cannot open: %s", std::strerror(errno))};
    return ncclSystemError;
  }
  std::ostringstream content;
  content << in.rdbuf();
  if (in.bad()) {
    *error = {path, 0, "read error"};
    return ncclSystemError;
  }
  return parseProgramString(content.str(), path, program, error);
}

}  // namespace flashccl::msccl
