// A fake libibverbs for doctor's verbs probe: the devices listed in FLASHCCL_FAKE_VERBS_DEVICES
// ("mlx5_0,mlx5_1"), of which those in FLASHCCL_FAKE_VERBS_UNOPENABLE fail to open with EACCES,
// as in a container without /dev/infiniband.
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>

namespace {

struct FakeDevice {
  char name[64];
};

bool listed(const char* variable, const std::string& name) {
  const char* list = std::getenv(variable);
  if (list == nullptr) return false;
  const std::string text = std::string(",") + list + ",";
  return text.find("," + name + ",") != std::string::npos;
}

}  // namespace

extern "C" {

void** ibv_get_device_list(int* count) {
  const char* list = std::getenv("FLASHCCL_FAKE_VERBS_DEVICES");
  std::string text = list ? list : "";
  int n = 0;
  void** devices = static_cast<void**>(std::calloc(text.size() + 2, sizeof(void*)));
  size_t start = 0;
  while (start < text.size()) {
    size_t comma = text.find(',', start);
    if (comma == std::string::npos) comma = text.size();
    if (comma > start) {
      FakeDevice* device = static_cast<FakeDevice*>(std::calloc(1, sizeof(FakeDevice)));
      std::strncpy(device->name, text.substr(start, comma - start).c_str(), sizeof(device->name) - 1);
      devices[n++] = device;
    }
    start = comma + 1;
  }
  *count = n;
  return devices;
}

void ibv_free_device_list(void** devices) {
  for (void** d = devices; *d != nullptr; ++d) std::free(*d);
  std::free(devices);
}

const char* ibv_get_device_name(void* device) { return static_cast<FakeDevice*>(device)->name; }

void* ibv_open_device(void* device) {
  if (listed("FLASHCCL_FAKE_VERBS_UNOPENABLE", ibv_get_device_name(device))) {
    errno = EACCES;
    return nullptr;
  }
  return device;
}

int ibv_close_device(void*) { return 0; }

}  // extern "C"
