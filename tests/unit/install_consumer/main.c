#include <stdio.h>
#include <string.h>

#include <flashccl/flashccl.h>

int main(void) {
  /* Linking ncclGetVersion proves the NCCL ABI comes from the installed flashccl. */
  ncclResult_t (*getVersion)(int*) = ncclGetVersion;
  printf("flashccl %s (package %s), ncclGetVersion at %p\n", flashcclVersion(), EXPECTED_VERSION,
         (void*)getVersion);
  return strcmp(flashcclVersion(), EXPECTED_VERSION) == 0 ? 0 : 1;
}
