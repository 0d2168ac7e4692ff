#include "variable_checks.h"

#include <algorithm>
#include <cctype>
#include <set>

namespace flashccl {
namespace doctor {

namespace {

const char* const kEnv = kFamilyEnvironment;

std::string joined(const std::vector<std::string>& items, const char* separator = ",") {
  std::string text;
  for (const std::string& item : items) text += (text.empty() ? "" : separator) + item;
  return text;
}

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> items;
  std::string item;
  for (char c : text + separator) {
    if (c == separator) {
      size_t begin = item.find_first_not_of(" \t"), end = item.find_last_not_of(" \t");
      items.push_back(begin == std::string::npos ? "" : item.substr(begin, end - begin + 1));
      item.clear();
    } else {
      item += c;
    }
  }
  return items;
}

bool isTrue(const std::string& value) {
  std::string v;
  for (char c : value) v += char(std::tolower(static_cast<unsigned char>(c)));
  return v == "1" || v == "yes" || v == "true" || v == "on";
}

const std::string* lookup(const VariableContext& context, const std::string& name) {
  auto it = context.environment.find(name);
  return it == context.environment.end() ? nullptr : &it->second;
}

bool matches(const NameFilter& filter, const NameFilter::Item& item, const std::string& name) {
  return filter.exact ? name == item.name : name.compare(0, item.name.size(), item.name) == 0;
}

CheckResult unset(const std::string& name, const std::string& why) {
  return makeCheck(kEnv, name, "node", Verdict::kPass, "unset", "-", why);
}

// NCCL_P2P_DISABLE, NCCL_SHM_DISABLE, NCCL_IB_DISABLE: a switch that turns a fast path off.
CheckResult disableSwitch(const VariableContext& context, const std::string& name,
                          bool matters, const std::string& whatBreaks) {
  const std::string* value = lookup(context, name);
  if (value == nullptr) return unset(name, whatBreaks);
  const std::string measured = name + "=" + *value;
  if (isTrue(*value) && matters) {
    return makeCheck(kEnv, name, "node", Verdict::kWarn, measured, "unset or 0",
                     whatBreaks + "; unset it unless a known bug forces it");
  }
  return makeCheck(kEnv, name, "node", Verdict::kPass, measured, "unset or 0", whatBreaks);
}

CheckResult ibHca(const VariableContext& context) {
  const std::string name = "NCCL_IB_HCA";
  const std::string* value = lookup(context, name);
  const std::string why = "NCCL uses only the RDMA devices this names; naming none that exists "
                          "sends all inter-node traffic over TCP sockets without an error";
  if (value == nullptr) return unset(name, "NCCL uses every RDMA device it finds");
  const std::string measured = name + "=" + *value;
  const std::string expected = "names devices present: " +
                               (context.rdmaDevices.empty() ? std::string("(none here)")
                                                            : joined(context.rdmaDevices));
  const NameFilter filter = parseNameFilter(*value);
  std::vector<std::string> absent;
  std::set<std::string> selected;
  for (const NameFilter::Item& item : filter.items) {
    bool found = false;
    for (const std::string& device : context.rdmaDevices) {
      if (!matches(filter, item, device)) continue;
      const auto ports = context.rdmaPorts.find(device);
      const bool portOk = item.port < 0 || ports == context.rdmaPorts.end() ||
                          std::count(ports->second.begin(), ports->second.end(), item.port) > 0;
      if (!portOk) continue;
      found = true;
      selected.insert(device);
    }
    if (!found) absent.push_back(item.name + (item.port >= 0 ? ":" + std::to_string(item.port) : ""));
  }
  if (filter.exclude) {
    const bool excludesAll = !context.rdmaDevices.empty() &&
                             selected.size() == context.rdmaDevices.size();
    if (excludesAll) {
      return makeCheck(kEnv, name, "node", Verdict::kWarn, measured, "leaves some device in use",
                       "it excludes every RDMA device here: inter-node traffic goes over TCP "
                       "sockets");
    }
    return makeCheck(kEnv, name, "node", absent.empty() ? Verdict::kPass : Verdict::kWarn,
                     measured, "excludes devices present",
                     absent.empty() ? why
                                    : "it excludes " + joined(absent) + ", which does not exist here "
                                      "(a typo, or a list written for another machine)");
  }
  if (!absent.empty() && selected.empty()) {
    return makeCheck(kEnv, name, "node", Verdict::kFail, measured, expected,
                     "no RDMA device here matches: " + why);
  }
  if (!absent.empty()) {
    return makeCheck(kEnv, name, "node", Verdict::kWarn, measured, expected,
                     joined(absent) + " does not exist here: NCCL runs on fewer rails than the "
                     "list intends");
  }
  return makeCheck(kEnv, name, "node", Verdict::kPass, measured, expected, why);
}

CheckResult socketIfname(const VariableContext& context) {
  const std::string name = "NCCL_SOCKET_IFNAME";
  const std::string* value = lookup(context, name);
  const std::string why = "NCCL bootstraps (and, without RDMA, moves data) over these interfaces; "
                          "when none matches it fails with 'no socket interface found'";
  if (value == nullptr) return unset(name, "NCCL picks an interface itself (ib*, then others, not lo or docker*)");
  const std::string measured = name + "=" + *value;
  const std::string expected = "matches an interface: " + joined(context.interfaces);
  const NameFilter filter = parseNameFilter(*value);
  std::vector<std::string> matching;
  for (const std::string& interface : context.interfaces) {
    bool hit = false;
    for (const NameFilter::Item& item : filter.items) hit = hit || matches(filter, item, interface);
    if (hit != filter.exclude) matching.push_back(interface);
  }
  if (matching.empty()) {
    return makeCheck(kEnv, name, "node", Verdict::kFail, measured, expected,
                     "no interface here is left by it: " + why);
  }
  return makeCheck(kEnv, name, "node", Verdict::kPass, measured + " -> " + joined(matching),
                   expected, why);
}

CheckResult nvls(const VariableContext& context) {
  const std::string name = "NCCL_NVLS_ENABLE";
  const std::string* value = lookup(context, name);
  const std::string why = "NVLink multicast (NVLS) needs the fabric manager and extra GPU memory "
                          "per communicator, and flashccl's shared hosts forbid it (it can take "
                          "their GPUs out of service)";
  if (!context.nvswitch) {
    return makeCheck(kEnv, name, "node", Verdict::kPass,
                     value ? name + "=" + *value : std::string("unset"), "-",
                     "no NVSwitch here, so NCCL cannot use NVLink multicast anyway");
  }
  if (value != nullptr && *value == "0") {
    return makeCheck(kEnv, name, "node", Verdict::kPass, name + "=0", name + "=0", why);
  }
  return makeCheck(kEnv, name, "node", Verdict::kWarn,
                   value ? name + "=" + *value : std::string("unset (NCCL enables NVLS here)"),
                   name + "=0", why + "; set NCCL_NVLS_ENABLE=0 unless this machine is meant to "
                   "use it");
}

CheckResult visibleDevices(const VariableContext& context) {
  const std::string name = "CUDA_VISIBLE_DEVICES";
  const std::string* value = lookup(context, name);
  if (value == nullptr) return unset(name, "every GPU is visible to CUDA");
  const std::string measured = name + "=" + *value;
  const VisibleDevices parsed = parseVisibleDevices(*value, context.nvmlGpuCount, context.gpuUuids);
  const std::string seen = parsed.visible.empty() ? std::string("no GPU") : joined(parsed.visible);
  const std::string expected = "every entry names a GPU" +
                               (context.nvmlGpuCount >= 0
                                    ? " (0-" + std::to_string(context.nvmlGpuCount - 1) + " or a UUID)"
                                    : std::string());
  if (parsed.visible.empty()) {
    return makeCheck(kEnv, name, "node", Verdict::kFail, measured + " -> " + seen, expected,
                     parsed.firstInvalid.empty() && value->find_first_not_of(" \t,") == std::string::npos
                         ? "an empty list hides every GPU from CUDA"
                         : "'" + parsed.firstInvalid + "' " + parsed.invalidReason +
                               ": CUDA stops at the first such entry, so no GPU is visible");
  }
  if (!parsed.hiddenAfterInvalid.empty()) {
    return makeCheck(kEnv, name, "node", Verdict::kFail, measured + " -> CUDA sees " + seen,
                     expected,
                     "'" + parsed.firstInvalid + "' " + parsed.invalidReason +
                         ": CUDA stops at the first such entry and hides " +
                         joined(parsed.hiddenAfterInvalid) + " after it");
  }
  if (!parsed.firstInvalid.empty() || !parsed.duplicates.empty()) {
    return makeCheck(kEnv, name, "node", Verdict::kWarn, measured + " -> CUDA sees " + seen,
                     expected,
                     !parsed.firstInvalid.empty()
                         ? "'" + parsed.firstInvalid + "' " + parsed.invalidReason + " (ignored)"
                         : joined(parsed.duplicates) + " listed twice");
  }
  return makeCheck(kEnv, name, "node", Verdict::kPass, measured + " -> CUDA sees " + seen, expected,
                   "jobs started here see only these GPUs, renumbered from 0");
}

}  // namespace

NameFilter parseNameFilter(const std::string& text) {
  NameFilter filter;
  std::string rest = text;
  if (!rest.empty() && rest[0] == '^') {
    filter.exclude = true;
    rest = rest.substr(1);
  }
  if (!rest.empty() && rest[0] == '=') {
    filter.exact = true;
    rest = rest.substr(1);
  }
  for (const std::string& token : split(rest, ',')) {
    if (token.empty()) continue;
    NameFilter::Item item;
    const size_t colon = token.find(':');
    item.name = token.substr(0, colon);
    if (colon != std::string::npos) {
      try {
        item.port = std::stoi(token.substr(colon + 1));
      } catch (...) {
        item.port = -1;
      }
    }
    filter.items.push_back(item);
  }
  return filter;
}

VisibleDevices parseVisibleDevices(const std::string& text, int gpuCount,
                                   const std::vector<std::string>& uuids) {
  VisibleDevices result;
  std::set<std::string> seen;
  bool stopped = false;
  for (const std::string& entry : split(text, ',')) {
    if (stopped) {
      if (!entry.empty()) result.hiddenAfterInvalid.push_back(entry);
      continue;
    }
    std::string reason;
    std::string key = entry;
    if (entry.empty()) {
      reason = "is empty";
    } else if (std::all_of(entry.begin(), entry.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); })) {
      const long index = entry.size() > 6 ? 1000000 : std::stol(entry);
      key = std::to_string(index);
      if (gpuCount >= 0 && index >= gpuCount) {
        reason = "is not a GPU index (this machine has " + std::to_string(gpuCount) + ")";
      }
    } else if (entry.compare(0, 4, "GPU-") == 0) {
      // CUDA accepts any unique prefix of a UUID.
      int hits = 0;
      for (const std::string& uuid : uuids) {
        if (uuid.compare(0, entry.size(), entry) == 0) {
          ++hits;
          key = uuid;
        }
      }
      if (!uuids.empty() && hits == 0) reason = "matches no GPU's UUID";
      if (hits > 1) reason = "matches more than one GPU's UUID";
    } else if (entry.compare(0, 4, "MIG-") != 0) {
      reason = "is neither an index nor a GPU-/MIG- UUID";
    }
    if (!reason.empty()) {
      result.firstInvalid = entry;
      result.invalidReason = reason;
      stopped = true;
      continue;
    }
    if (!seen.insert(key).second) {
      result.duplicates.push_back(entry);
      continue;
    }
    result.visible.push_back(entry);
  }
  return result;
}

std::vector<CheckResult> judgeVariables(const VariableContext& context) {
  const bool haveRdma = !context.rdmaDevices.empty();
  return {
      disableSwitch(context, "NCCL_P2P_DISABLE", true,
                    "P2P off makes GPUs of one node exchange data through host memory (SHM): "
                    "several times slower on NVLink"),
      disableSwitch(context, "NCCL_SHM_DISABLE", true,
                    "SHM off leaves only P2P, or the network, between GPUs that cannot use P2P"),
      disableSwitch(context, "NCCL_IB_DISABLE", haveRdma,
                    haveRdma ? "IB/RoCE off sends inter-node traffic over TCP sockets although "
                               "RDMA devices are present"
                             : "no RDMA device here, so NCCL uses sockets between nodes anyway"),
      ibHca(context),
      socketIfname(context),
      nvls(context),
      visibleDevices(context),
  };
}

}  // namespace doctor
}  // namespace flashccl
