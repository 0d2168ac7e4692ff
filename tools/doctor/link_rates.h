// Raw data rates of the links doctor measures against: what the hardware signals, before any
// protocol overhead. The verdict ratios in thresholds.h account for the overhead.
#pragma once

#include <string>

namespace flashccl {
namespace doctor {

// GB/s (10^9 bytes/s) per lane and direction of PCIe generation `generation`: 2.5/5 GT/s with
// 8b/10b (Gen1-2), 8/16/32 GT/s with 128b/130b (Gen3-5), 64 GT/s PAM4 with 242/256 FLIT
// efficiency (Gen6). 0 for an unknown generation.
double pcieLaneGBps(int generation);
// A whole link: lanes x lane rate (Gen4 x16 = 31.5 GB/s, Gen5 x16 = 63.0 GB/s).
double pcieLinkGBps(int generation, int width);
std::string pcieLinkName(int generation, int width);  // "Gen5 x16"

// DRAM bandwidth from the memory interface: bus width (bits) x memory clock (MHz) x 2 (double
// data rate) / 8. H200: 6144-bit x 3201 MHz -> 4917 GB/s; A100 80GB: 5120 x 1593 -> 2039 GB/s.
// 0 when either is unknown.
double memoryGBps(int busWidthBits, int memoryClockMHz);

// NVLink: per-link rate in MB/s as NVML reports it (field NVLINK_SPEED_MBPS_COMMON: 26562 on
// Hopper, i.e. 26.56 GB/s per link and direction) times links.
double nvlinkGBps(int links, double perLinkMBps);

}  // namespace doctor
}  // namespace flashccl
