// Host layout from hwloc 2.x, loaded with dlopen (docs/design.md, "Few dependencies"). hwloc.h is used for the object
// layout only; every function is reached through dlsym, never linked, so a host without hwloc
// runs the same binary (and then uses sysfs, host_layout.h).
#include <dlfcn.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "topo/host_layout.h"

#if __has_include(<hwloc.h>)
#include <hwloc.h>
#define FLASHCCL_HAVE_HWLOC_HEADER 1
#endif

namespace flashccl {

#ifndef FLASHCCL_HAVE_HWLOC_HEADER

bool readHostLayoutWithHwloc(const std::string& library, HostLayout* layout, std::string* why) {
  // A missing library reads the same with or without hwloc.h at build time, so what a caller
  // (and a test that points at a library that is not there) sees does not depend on the build
  // machine's packages.
  void* handle = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* error = dlerror();
    if (why) *why = std::string("cannot load ") + library + ": " + (error ? error : "unknown error");
    return false;
  }
  dlclose(handle);
  if (why) *why = "hwloc support not compiled in (no hwloc.h when this library was built)";
  return false;
}

#else

namespace {

struct HwlocFunctions {
  unsigned (*getApiVersion)();
  int (*topologyInit)(hwloc_topology_t*);
  int (*setIoTypesFilter)(hwloc_topology_t, enum hwloc_type_filter_e);
  int (*setComponents)(hwloc_topology_t, unsigned long, const char*);  // optional (>= 2.1)
  int (*topologyLoad)(hwloc_topology_t);
  void (*topologyDestroy)(hwloc_topology_t);
  int (*getTypeDepth)(hwloc_topology_t, hwloc_obj_type_t);
  unsigned (*getNbobjsByDepth)(hwloc_topology_t, int);
  hwloc_obj_t (*getObjByDepth)(hwloc_topology_t, int, unsigned);
  int (*bitmapListAsprintf)(char**, hwloc_const_bitmap_t);
  int (*bitmapFirst)(hwloc_const_bitmap_t);
  int (*bitmapWeight)(hwloc_const_bitmap_t);
};

template <typename Fn>
bool bind(void* handle, const char* symbol, Fn* fn) {
  *fn = reinterpret_cast<Fn>(dlsym(handle, symbol));
  return *fn != nullptr;
}

std::string pciAddress(hwloc_obj_t pci) {
  char text[32];
  std::snprintf(text, sizeof(text), "%04x:%02x:%02x.%x", unsigned(pci->attr->pcidev.domain),
                unsigned(pci->attr->pcidev.bus), unsigned(pci->attr->pcidev.dev),
                unsigned(pci->attr->pcidev.func));
  return text;
}

// NUMA node an I/O object is attached to: its first ancestor with a cpuset (hwloc puts I/O
// objects under the CPU-side object they are local to), if that covers exactly one node.
int numaNodeOf(const HwlocFunctions& fn, hwloc_obj_t obj) {
  hwloc_obj_t ancestor = obj->parent;
  while (ancestor != nullptr && ancestor->cpuset == nullptr) ancestor = ancestor->parent;
  if (ancestor == nullptr || ancestor->nodeset == nullptr) return -1;
  if (fn.bitmapWeight(ancestor->nodeset) != 1) return -1;
  return fn.bitmapFirst(ancestor->nodeset);
}

}  // namespace

bool readHostLayoutWithHwloc(const std::string& library, HostLayout* layout, std::string* why) {
  // The handle is never closed: hwloc may be shared with the application, and one mapping for
  // the life of the process costs nothing.
  void* handle = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* error = dlerror();
    if (why) *why = std::string("cannot load ") + library + ": " + (error ? error : "unknown error");
    return false;
  }
  HwlocFunctions fn{};
  if (!bind(handle, "hwloc_get_api_version", &fn.getApiVersion)) {
    if (why) *why = library + " is not hwloc (no hwloc_get_api_version)";
    return false;
  }
  // Struct layouts differ between hwloc majors (1.x, 2.x, 3.x); only the one we were built
  // against is safe to read.
  const unsigned runtimeVersion = fn.getApiVersion();
  if ((runtimeVersion >> 16) != (HWLOC_API_VERSION >> 16)) {
    char text[160];
    std::snprintf(text, sizeof(text), "%s has API version 0x%x, built for 0x%x (different major)",
                  library.c_str(), runtimeVersion, unsigned(HWLOC_API_VERSION));
    if (why) *why = text;
    return false;
  }
  if (!bind(handle, "hwloc_topology_init", &fn.topologyInit) ||
      !bind(handle, "hwloc_topology_set_io_types_filter", &fn.setIoTypesFilter) ||
      !bind(handle, "hwloc_topology_load", &fn.topologyLoad) ||
      !bind(handle, "hwloc_topology_destroy", &fn.topologyDestroy) ||
      !bind(handle, "hwloc_get_type_depth", &fn.getTypeDepth) ||
      !bind(handle, "hwloc_get_nbobjs_by_depth", &fn.getNbobjsByDepth) ||
      !bind(handle, "hwloc_get_obj_by_depth", &fn.getObjByDepth) ||
      !bind(handle, "hwloc_bitmap_list_asprintf", &fn.bitmapListAsprintf) ||
      !bind(handle, "hwloc_bitmap_first", &fn.bitmapFirst) ||
      !bind(handle, "hwloc_bitmap_weight", &fn.bitmapWeight)) {
    if (why) *why = library + " lacks an hwloc 2.x entry point";
    return false;
  }
  bind(handle, "hwloc_topology_set_components", &fn.setComponents);

  hwloc_topology_t topology = nullptr;
  if (fn.topologyInit(&topology) != 0) {
    if (why) *why = "hwloc_topology_init failed";
    return false;
  }
  // Keep PCI devices that matter (GPUs, NICs) and their OS devices (eth0, mlx5_0).
  fn.setIoTypesFilter(topology, HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
  // hwloc's GPU plugins would initialise CUDA, NVML, OpenCL or ROCm inside the application's
  // process just to name devices we already know; the Linux backend gives everything we need.
  if (fn.setComponents != nullptr) {
    for (const char* component : {"cuda", "nvml", "opencl", "rsmi", "levelzero", "gl"}) {
      fn.setComponents(topology, HWLOC_TOPOLOGY_COMPONENTS_FLAG_BLACKLIST, component);
    }
  }
  if (fn.topologyLoad(topology) != 0) {
    fn.topologyDestroy(topology);
    if (why) *why = "hwloc_topology_load failed";
    return false;
  }

  layout->numaNodes.clear();
  layout->nics.clear();
  char versionText[32];
  std::snprintf(versionText, sizeof(versionText), "hwloc API 0x%x", runtimeVersion);
  layout->source = versionText;

  const int numaDepth = fn.getTypeDepth(topology, HWLOC_OBJ_NUMANODE);
  const unsigned numaCount = fn.getNbobjsByDepth(topology, numaDepth);
  for (unsigned i = 0; i < numaCount; ++i) {
    hwloc_obj_t obj = fn.getObjByDepth(topology, numaDepth, i);
    if (obj == nullptr) continue;
    NumaNode node;
    node.id = int(obj->os_index);
    node.memoryBytes = size_t(obj->attr->numanode.local_memory);
    char* cpus = nullptr;
    if (obj->cpuset != nullptr && fn.bitmapListAsprintf(&cpus, obj->cpuset) >= 0 && cpus) {
      node.cpus = cpus;
      std::free(cpus);  // hwloc allocates with malloc
    }
    layout->numaNodes.push_back(node);
  }

  const unsigned osdevCount = fn.getNbobjsByDepth(topology, HWLOC_TYPE_DEPTH_OS_DEVICE);
  for (unsigned i = 0; i < osdevCount; ++i) {
    hwloc_obj_t obj = fn.getObjByDepth(topology, HWLOC_TYPE_DEPTH_OS_DEVICE, i);
    if (obj == nullptr || obj->name == nullptr) continue;
    Nic nic;
    if (obj->attr->osdev.type == HWLOC_OBJ_OSDEV_NETWORK) nic.kind = Nic::Kind::kEthernet;
    else if (obj->attr->osdev.type == HWLOC_OBJ_OSDEV_OPENFABRICS) nic.kind = Nic::Kind::kRdma;
    else continue;
    nic.name = obj->name;
    hwloc_obj_t pci = obj->parent;
    while (pci != nullptr && pci->type != HWLOC_OBJ_PCI_DEVICE) {
      if (pci->cpuset != nullptr) { pci = nullptr; break; }  // left the I/O subtree
      pci = pci->parent;
    }
    if (pci != nullptr) nic.pciBusId = pciAddress(pci);
    nic.numaNode = numaNodeOf(fn, obj);
    layout->nics.push_back(nic);
  }
  std::sort(layout->nics.begin(), layout->nics.end(),
            [](const Nic& a, const Nic& b) { return a.name < b.name; });
  fn.topologyDestroy(topology);
  return true;
}

#endif  // FLASHCCL_HAVE_HWLOC_HEADER

}  // namespace flashccl
