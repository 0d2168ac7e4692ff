#include "verbs_data_path.h"

#include <fcntl.h>

#include <cmath>
#include <cstring>

#include "listen_endpoint.h"
#include "log.h"

namespace flashccl::softbond {
namespace {

// The local ACK timeout is 4.096 us * 2^t per try and a queue pair fails after retry_cnt + 1
// tries: pick the largest t whose 8 tries fit in the rail timeout, so verbs reports a dead path
// about when the heartbeats would.
uint8_t ackTimeoutExponent(int timeoutMs) {
  double perTryUs = timeoutMs * 1000.0 / 8.0;
  int exponent = static_cast<int>(std::floor(std::log2(perTryUs / 4.096)));
  return static_cast<uint8_t>(std::max(8, std::min(exponent, 31)));
}

}  // namespace

VerbsDataPath::VerbsDataPath(const VerbsLibrary* verbs, VerbsDevice* device, DataPathSetup setup)
    : verbs_(verbs), device_(device), setup_(std::move(setup)) {
  port_ = static_cast<uint8_t>(setup_.local->rdmaPort);
}

VerbsDataPath::~VerbsDataPath() {
  if (qp_) verbs_->destroyQp(qp_);
  if (cq_) verbs_->destroyCq(cq_);
  if (channel_) verbs_->destroyCompChannel(channel_);
  if (slotsMr_) verbs_->deregMr(slotsMr_);
}

int VerbsDataPath::gidIndex(const ibv_port_attr& port, bool* useGid) {
  *useGid = port.link_layer == IBV_LINK_LAYER_ETHERNET;
  if (!*useGid) return 0;  // InfiniBand within a subnet: addressed by LID
  if (setup_.settings->gidIndex >= 0) return setup_.settings->gidIndex;
  // RoCE: the GID that carries the rail interface's IP address (IPv4-mapped for IPv4). Later
  // entries for one address are RoCE v2, which routes; take the last.
  uint8_t wanted[16] = {};
  const SockAddr& address = setup_.local->address;
  if (address.family() == AF_INET) {
    wanted[10] = wanted[11] = 0xff;
    memcpy(wanted + 12, &reinterpret_cast<const sockaddr_in*>(&address.storage)->sin_addr, 4);
  } else {
    memcpy(wanted, &reinterpret_cast<const sockaddr_in6*>(&address.storage)->sin6_addr, 16);
  }
  int found = 0;
  for (int i = 0; i < port.gid_tbl_len; ++i) {
    ibv_gid gid;
    if (verbs_->queryGid(device_->context, port_, i, &gid) == 0 && memcmp(gid.raw, wanted, 16) == 0) found = i;
  }
  return found;
}

bool VerbsDataPath::create(std::string* why) {
  epoch_ = device_->portEpoch[port_ & 15].load();
  ibv_port_attr port;
  memset(&port, 0, sizeof(port));
  if (verbs_->queryPort(device_->context, port_, &port) != 0) return *why = "ibv_query_port failed", false;
  if (port.state != IBV_PORT_ACTIVE) return *why = "port not active", false;
  channel_ = verbs_->createCompChannel(device_->context);
  if (!channel_) return *why = "ibv_create_comp_channel failed", false;
  fcntl(channel_->fd, F_SETFL, fcntl(channel_->fd, F_GETFL) | O_NONBLOCK);
  cq_ = verbs_->createCq(device_->context, 2 * kMaxOutstanding + kReceiveSlots, nullptr, channel_, 0);
  if (!cq_) return *why = "ibv_create_cq failed", false;
  if (ibv_req_notify_cq(cq_, 0) != 0) return *why = "ibv_req_notify_cq failed", false;

  ibv_qp_init_attr init;
  memset(&init, 0, sizeof(init));
  init.send_cq = cq_;
  init.recv_cq = cq_;
  init.qp_type = IBV_QPT_RC;
  init.cap.max_send_wr = 2 * kMaxOutstanding;  // a write and a send per chunk
  init.cap.max_recv_wr = kReceiveSlots;
  init.cap.max_send_sge = 1;
  init.cap.max_recv_sge = 1;
  init.cap.max_inline_data = kChunkHeaderBytes;
  qp_ = verbs_->createQp(device_->pd, &init);
  if (!qp_) return *why = std::string("ibv_create_qp failed: ") + strerror(errno), false;

  ibv_qp_attr attr;
  memset(&attr, 0, sizeof(attr));
  attr.qp_state = IBV_QPS_INIT;
  attr.pkey_index = 0;
  attr.port_num = port_;
  attr.qp_access_flags = IBV_ACCESS_REMOTE_WRITE;
  if (verbs_->modifyQp(qp_, &attr, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS) != 0)
    return *why = "queue pair to INIT failed", false;

  slots_.reset(new uint8_t[kReceiveSlots * kChunkHeaderBytes]);
  slotsMr_ = verbs_->regMr(device_->pd, slots_.get(), kReceiveSlots * kChunkHeaderBytes, IBV_ACCESS_LOCAL_WRITE);
  if (!slotsMr_) return *why = "registering the receive slots failed", false;
  for (int slot = 0; slot < kReceiveSlots; ++slot)
    if (!postReceive(slot)) return *why = "ibv_post_recv failed", false;

  bool useGid = false;
  int index = gidIndex(port, &useGid);
  local_.generation = setup_.generation;
  local_.qpNumber = qp_->qp_num;
  uint32_t psn = 0;
  randomBytes(&psn, sizeof(psn));
  local_.packetSequence = psn & 0xffffff;
  local_.lid = port.lid;
  local_.mtu = static_cast<uint8_t>(port.active_mtu);
  local_.useGid = useGid;
  if (useGid) {
    ibv_gid gid;
    if (verbs_->queryGid(device_->context, port_, index, &gid) != 0) return *why = "ibv_query_gid failed", false;
    memcpy(local_.gid, gid.raw, 16);
  }
  // The GID index travels in the otherwise unused LID for RoCE (where there are no LIDs).
  if (useGid) local_.lid = static_cast<uint16_t>(index);
  return true;
}

bool VerbsDataPath::postReceive(int slot) {
  ibv_sge sge;
  sge.addr = reinterpret_cast<uint64_t>(slots_.get() + slot * kChunkHeaderBytes);
  sge.length = kChunkHeaderBytes;
  sge.lkey = slotsMr_->lkey;
  ibv_recv_wr wr;
  memset(&wr, 0, sizeof(wr));
  wr.wr_id = static_cast<uint64_t>(slot);
  wr.sg_list = &sge;
  wr.num_sge = 1;
  ibv_recv_wr* bad = nullptr;
  return ibv_post_recv(qp_, &wr, &bad) == 0;
}

void VerbsDataPath::openingMessages(std::vector<std::vector<uint8_t>>* messages) {
  messages->push_back(encodeVerbsQp(local_));
}

bool VerbsDataPath::onControl(const ControlFrame& frame, std::vector<std::vector<uint8_t>>*, std::string* why) {
  VerbsQpInfo remote;
  if (!decodeVerbsQp(frame, &remote)) return *why = "malformed queue-pair description", false;
  if (remote.generation != setup_.generation) return true;  // for sockets already replaced
  if (connected_) return *why = "second queue-pair description", false;
  return connect(remote, why);
}

bool VerbsDataPath::connect(const VerbsQpInfo& remote, std::string* why) {
  ibv_qp_attr attr;
  memset(&attr, 0, sizeof(attr));
  attr.qp_state = IBV_QPS_RTR;
  attr.path_mtu = static_cast<ibv_mtu>(std::min(local_.mtu, remote.mtu));
  attr.dest_qp_num = remote.qpNumber;
  attr.rq_psn = remote.packetSequence;
  attr.max_dest_rd_atomic = 1;
  attr.min_rnr_timer = 12;
  attr.ah_attr.port_num = port_;
  if (remote.useGid) {
    attr.ah_attr.is_global = 1;
    memcpy(attr.ah_attr.grh.dgid.raw, remote.gid, 16);
    attr.ah_attr.grh.sgid_index = static_cast<uint8_t>(local_.lid);  // our GID index (see create)
    attr.ah_attr.grh.hop_limit = 255;
  } else {
    attr.ah_attr.dlid = remote.lid;
  }
  if (verbs_->modifyQp(qp_, &attr,
                       IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
                           IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER) != 0)
    return *why = std::string("queue pair to RTR failed: ") + strerror(errno), false;
  memset(&attr, 0, sizeof(attr));
  attr.qp_state = IBV_QPS_RTS;
  attr.timeout = ackTimeoutExponent(setup_.settings->timeoutMs);
  attr.retry_cnt = 7;
  attr.rnr_retry = 7;  // receive slots are reposted at once; wait rather than fail
  attr.sq_psn = local_.packetSequence;
  attr.max_rd_atomic = 1;
  if (verbs_->modifyQp(qp_, &attr,
                       IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
                           IBV_QP_MAX_QP_RD_ATOMIC) != 0)
    return *why = std::string("queue pair to RTS failed: ") + strerror(errno), false;
  connected_ = true;
  return true;
}

void VerbsDataPath::put(const ChunkPut& chunk) {
  uint8_t header[kChunkHeaderBytes];
  encodeChunkHeader(chunk.header, header);
  ibv_sge dataSge;
  dataSge.addr = reinterpret_cast<uint64_t>(chunk.source);
  dataSge.length = chunk.header.length;
  dataSge.lkey = chunk.localKey;
  ibv_sge headerSge;
  headerSge.addr = reinterpret_cast<uint64_t>(header);
  headerSge.length = kChunkHeaderBytes;
  headerSge.lkey = 0;  // inline: copied at post time, no key needed

  ibv_send_wr write, send;
  memset(&write, 0, sizeof(write));
  memset(&send, 0, sizeof(send));
  write.opcode = IBV_WR_RDMA_WRITE;
  write.sg_list = &dataSge;
  write.num_sge = 1;
  write.wr.rdma.remote_addr = chunk.remoteAddress;
  write.wr.rdma.rkey = chunk.remoteKey;
  write.next = &send;
  send.opcode = IBV_WR_SEND;
  send.sg_list = &headerSge;
  send.num_sge = 1;
  send.send_flags = IBV_SEND_INLINE | IBV_SEND_SIGNALED;
  send.wr_id = 1;
  ibv_send_wr* first = chunk.header.length ? &write : &send;
  ibv_send_wr* bad = nullptr;
  if (ibv_post_send(qp_, first, &bad) != 0) {
    failed_ = true;
    error_ = std::string("ibv_post_send failed: ") + strerror(errno);
    return;
  }
  ++outstanding_;
}

void VerbsDataPath::railFailed() {
  if (!qp_) return;
  // Flushes what is still posted: nothing of this rail may land after its chunks were resent
  // elsewhere and the buffer handed back to NCCL.
  ibv_qp_attr attr;
  memset(&attr, 0, sizeof(attr));
  attr.qp_state = IBV_QPS_ERR;
  verbs_->modifyQp(qp_, &attr, IBV_QP_STATE);
  connected_ = false;
}

void VerbsDataPath::addPollFds(std::vector<pollfd>* fds) {
  pollIndex_ = fds->size();
  fds->push_back({channel_->fd, POLLIN, 0});
}

bool VerbsDataPath::progress(const std::vector<pollfd>& fds, ChunkSink* sink, std::string* why) {
  if (failed_) return *why = error_, false;
  if (device_->portEpoch[port_ & 15].load() != epoch_) return *why = "port went down", false;
  if (fds[pollIndex_].revents & POLLIN) {
    ibv_cq* cq = nullptr;
    void* context = nullptr;
    if (verbs_->getCqEvent(channel_, &cq, &context) == 0) {
      verbs_->ackCqEvents(cq, 1);
      ibv_req_notify_cq(cq_, 0);
    }
  }
  ibv_wc completions[32];
  for (;;) {
    int count = ibv_poll_cq(cq_, 32, completions);
    if (count < 0) return *why = "ibv_poll_cq failed", false;
    if (count == 0) return true;
    for (int i = 0; i < count; ++i) {
      const ibv_wc& wc = completions[i];
      if (wc.status != IBV_WC_SUCCESS) {
        *why = "completion error, status " + std::to_string(wc.status);
        return false;
      }
      if (wc.opcode == IBV_WC_RECV) {
        const int slot = static_cast<int>(wc.wr_id);
        ChunkHeader header;
        const char* bad = nullptr;
        if (slot < 0 || slot >= kReceiveSlots || wc.byte_len != kChunkHeaderBytes ||
            !decodeChunkHeader(slots_.get() + slot * kChunkHeaderBytes, setup_.chunkBytes, &header, &bad) ||
            !sink->arrivedRemote(setup_.rail, header))
          return *why = "chunk header that fits no posted receive", false;
        if (!postReceive(slot)) return *why = "ibv_post_recv failed", false;
      } else if (wc.opcode == IBV_WC_SEND) {
        --outstanding_;
      }
    }
  }
}

}  // namespace flashccl::softbond
