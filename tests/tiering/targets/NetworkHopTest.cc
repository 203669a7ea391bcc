// A block device one network hop away: a message's time is sender CPU + size
// / payload rate + latency + receiver CPU, links saturate at their payload
// rate, full duplex, and where traffic converges; data crosses untouched.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <memory>
#include <numeric>
#include <vector>

#include "tests/support/VerifyHarness.h"
#include "tiering/core/SimEngine.h"
#include "tiering/devices/RamDevice.h"
#include "tiering/targets/NetworkHopTarget.h"

namespace tierlab {
namespace {

constexpr std::uint64_t kMiB = 1 << 20;

std::shared_ptr<NicModel> Port(const std::string& name, const char* preset) {
  return std::make_shared<NicModel>(name, *NicSpec::Find(preset));
}

std::unique_ptr<NetworkHopTarget> Hop(SimEngine& e, std::shared_ptr<NicModel> client,
                                      std::shared_ptr<NicModel> server,
                                      std::uint64_t size = 64 * kMiB) {
  return std::make_unique<NetworkHopTarget>(e, "hop", std::make_unique<RamDevice>(e, "r", size),
                                            std::move(client), std::move(server));
}

// Keeps `qd` requests of `bs` bytes in flight on `d` until `total` have
// completed, at sequential offsets; returns nothing, the caller reads time.
void Drive(SimEngine& e, BlockDevice& d, IoOp op, std::uint64_t bs, int qd, int total) {
  int issued = 0;
  std::uint64_t next = 0;
  std::function<void()> issue = [&] {
    if (issued == total) return;
    ++issued;
    IoRequest r{op, 0, next, bs, nullptr};
    next = (next + bs) % d.Size();
    d.Submit(r, [&](Status st) {
      ASSERT_EQ(st, Status::kOk);
      issue();
    });
  };
  for (int i = 0; i < qd; ++i) issue();
  e.Run();
}

// One request alone on a 10 GbE TCP hop: how long it took, and the ports.
struct Alone {
  Nanos took;
  std::shared_ptr<NicModel> client, server;
};
Alone OneRequest(IoOp op, std::uint64_t length) {
  SimEngine e;
  Alone a{0, Port("client", "10gbe-tcp"), Port("server", "10gbe-tcp")};
  auto hop = Hop(e, a.client, a.server);
  Status got = Status::kShutdown;
  hop->Submit(IoRequest{op, 0, 0, length, nullptr}, [&](Status st) { got = st; });
  e.Run();
  EXPECT_EQ(got, Status::kOk);
  a.took = e.Now();
  return a;
}

// Both messages' CPU and latency, and each message's wire time once.
double Unloaded(const NicSpec& n, double request_bytes, double answer_bytes) {
  auto wire = [&](double bytes) { return std::ceil(bytes / n.PayloadBytesPerNs()); };
  return 2.0 * (2 * n.cpu_per_message + n.one_way_latency) + wire(request_bytes) +
         wire(answer_bytes);
}

// QD1: the request's header out, the answer's header and 4 KiB back, each
// paying both sides' CPU, the latency and its own wire time once.
TEST(NetworkHopTest, OneRequestPaysBothMessagesOnce) {
  const Alone a = OneRequest(IoOp::kRead, 4096);
  const auto took = static_cast<double>(a.took);
  EXPECT_NEAR(took, Unloaded(a.client->spec(), 64, 64 + 4096), 2.0);
  // 10 GbE TCP: 2 x (14 + 15) us + 0.06 + 3.6 us.
  EXPECT_NEAR(took / 1e3, 61.6, 0.1);
  EXPECT_EQ(a.client->tx().messages, 1u);
  EXPECT_EQ(a.server->rx().bytes, 64u);
  EXPECT_EQ(a.server->tx().bytes, 64u + 4096u);
}

// A message larger than a segment, alone on its ports, costs what it would
// whole: a 1 MiB write's 17 segments follow each other on both wires with
// no gap (a nanosecond of rounding each at most).
TEST(NetworkHopTest, ALoneLargeMessageCostsWhatItWouldWhole) {
  const Alone a = OneRequest(IoOp::kWrite, kMiB);
  const NicSpec& n = a.client->spec();
  EXPECT_NEAR(static_cast<double>(a.took), Unloaded(n, 64 + kMiB, 64), 17.0);
  EXPECT_EQ(a.client->tx().messages, 1u);
  EXPECT_EQ(a.server->rx().messages, 1u);
  EXPECT_EQ(a.server->rx().bytes, 64u + kMiB);
  EXPECT_EQ(a.client->tx().cpu_busy, n.cpu_per_message);
}

// A small message sent just after a large one on the same port takes its
// turn after the large one's first segment (64 KiB: 57 us at 10 GbE), not
// after all of it (0.91 ms), and delays it by only its own wire time.
TEST(NetworkHopTest, ASmallMessageTakesItsTurnBetweenALargeOnesSegments) {
  const auto run = [](bool with_small, Nanos* small_done) {
    SimEngine e;
    auto c = Port("client", "10gbe-tcp");
    auto s = Port("server", "10gbe-tcp");
    auto hop = Hop(e, c, s);
    Nanos large_done = 0;
    hop->Submit(IoRequest{IoOp::kWrite, 0, 0, kMiB, nullptr},
                [&](Status) { large_done = e.Now(); });
    if (with_small) {
      hop->Submit(IoRequest{IoOp::kWrite, 0, 2 * kMiB, 4096, nullptr},
                  [&, small_done](Status) { *small_done = e.Now(); });
    }
    e.Run();
    return large_done;
  };
  Nanos small = 0;
  const Nanos alone = run(false, nullptr);
  const Nanos large = run(true, &small);
  const double rate = NicSpec::Find("10gbe-tcp")->PayloadBytesPerNs();
  // Measured: the 4k write done at 118.7 us (61.6 alone and one segment),
  // the 1 MiB one 3.6 us later than alone (969.9 us). Whole messages in
  // turn would hold the 4k write 0.91 ms.
  EXPECT_LT(static_cast<double>(small), 61.6e3 + 2 * (65536 + 64) / rate)
      << "small " << small << " ns, large " << large << " ns, alone " << alone << " ns";
  EXPECT_GT(static_cast<double>(small), 61.6e3 + 65536 / rate);
  EXPECT_LE(static_cast<double>(large - alone), std::ceil((64 + 4096) / rate) + 2);
  EXPECT_GT(large, alone);
}

// Twenty header-only requests sent just after a 1 MiB write queue for the
// port's CPU (7 us each at 10 GbE TCP, 140 us in all); while they wait they
// hold no wire time, so the write's segments go on between them and it is
// delayed only by their wire time (20 x 0.06 us), not by their CPU queue.
TEST(NetworkHopTest, AMessageWaitingForTheCpuHoldsNoWireTime) {
  const auto run = [](int flushes) {
    SimEngine e;
    auto hop = Hop(e, Port("client", "10gbe-tcp"), Port("server", "10gbe-tcp"));
    Nanos write_done = 0;
    hop->Submit(IoRequest{IoOp::kWrite, 0, 0, kMiB, nullptr},
                [&](Status) { write_done = e.Now(); });
    for (int i = 0; i < flushes; ++i) {
      hop->Submit(IoRequest{IoOp::kFlush, 0, 0, 0, nullptr}, [](Status) {});
    }
    e.Run();
    return write_done;
  };
  const Nanos alone = run(0);
  const Nanos behind = run(20);
  const double header_wire = 64 / NicSpec::Find("10gbe-tcp")->PayloadBytesPerNs();
  EXPECT_LE(static_cast<double>(behind - alone), 20 * (header_wire + 1))
      << "alone " << alone << " ns, behind 20 requests " << behind << " ns";
}

// 150 header-only requests sent just after a 1 MiB write keep the port's
// CPU busy 1.05 ms (7 us each at 10 GbE TCP), past the write's last
// segment (0.93 ms); one more sent at 1 ms, when the write has left, still
// goes on the wire after all of them: the CPU finished them first. Were its
// slot taken when it was sent, it would pass the requests still in the
// CPU's queue then (measured: 9 of them).
TEST(NetworkHopTest, NoMessagePassesOneTheCpuFinishedFirst) {
  SimEngine e;
  auto hop = Hop(e, Port("client", "10gbe-tcp"), Port("server", "10gbe-tcp"));
  constexpr int kQueued = 150;
  std::vector<int> order;
  Nanos write_done = 0;
  hop->Submit(IoRequest{IoOp::kWrite, 0, 0, kMiB, nullptr}, [&](Status) { write_done = e.Now(); });
  const auto flush = [&](int id) {
    hop->Submit(IoRequest{IoOp::kFlush, 0, 0, 0, nullptr}, [&order, id](Status st) {
      EXPECT_EQ(st, Status::kOk);
      order.push_back(id);
    });
  };
  for (int i = 0; i < kQueued; ++i) flush(i);
  e.ScheduleAt(1'000'000, [&] { flush(kQueued); });
  e.Run();
  ASSERT_EQ(order.size(), static_cast<std::size_t>(kQueued + 1));
  EXPECT_LT(write_done, 1'000'000) << "the last request must be sent after the write has left";
  std::vector<int> sent_order(order.size());
  std::iota(sent_order.begin(), sent_order.end(), 0);
  const auto last_done_after = std::find(order.begin(), order.end(), kQueued) - order.begin();
  EXPECT_EQ(order, sent_order) << "the last request done after " << last_done_after << " others";
}

// 64 KiB reads at QD16 over 1 GbE: the server's TX wire is the bottleneck,
// 0.94 x 125 MB/s = 117.5 MB/s of messages, 64 bytes of each a header.
TEST(NetworkHopTest, ReadsRunAtTheLinksPayloadRate) {
  SimEngine e;
  auto c = Port("client", "1gbe-tcp");
  auto s = Port("server", "1gbe-tcp");
  auto hop = Hop(e, c, s);
  constexpr int kTotal = 2000;
  Drive(e, *hop, IoOp::kRead, 65536, 16, kTotal);
  const double seconds = static_cast<double>(e.Now()) / 1e9;
  const double mbps = kTotal * 65536.0 / seconds / 1e6;
  EXPECT_NEAR(mbps, 117.5 * 65536 / (65536 + 64), 1.0);
  EXPECT_GT(s->TxUtilisation(e.Now()), 0.99);
  EXPECT_LT(s->RxUtilisation(e.Now()), 0.01);  // headers only
}

// Full duplex: reads (server to client) and writes (client to server) each
// run at the payload rate at the same time, on separate hops sharing ports.
TEST(NetworkHopTest, ReadsAndWritesShareNoDirection) {
  SimEngine e;
  auto c = Port("client", "1gbe-tcp");
  auto s = Port("server", "1gbe-tcp");
  auto reads = Hop(e, c, s);
  auto writes = Hop(e, c, s);
  constexpr int kTotal = 1000;
  Nanos read_done = 0, write_done = 0;
  {
    // Both streams at once: drive one, and the other from the same run.
    int issued_r = 0, issued_w = 0;
    std::function<void()> issue_r = [&] {
      if (issued_r == kTotal) return;
      IoRequest r{IoOp::kRead, 0, (issued_r++ % 512) * 65536ull, 65536, nullptr};
      reads->Submit(r, [&](Status) {
        read_done = e.Now();
        issue_r();
      });
    };
    std::function<void()> issue_w = [&] {
      if (issued_w == kTotal) return;
      IoRequest w{IoOp::kWrite, 0, (issued_w++ % 512) * 65536ull, 65536, nullptr};
      writes->Submit(w, [&](Status) {
        write_done = e.Now();
        issue_w();
      });
    };
    for (int i = 0; i < 16; ++i) {
      issue_r();
      issue_w();
    }
    e.Run();
  }
  const double rate = 117.5 * 65536 / (65536 + 64);
  EXPECT_NEAR(kTotal * 65536.0 / (static_cast<double>(read_done) / 1e9) / 1e6, rate, 1.5);
  EXPECT_NEAR(kTotal * 65536.0 / (static_cast<double>(write_done) / 1e9) / 1e6, rate, 1.5);
}

// Incast: two clients on ports of their own write to one server port; they
// share its RX wire, so together they get one link's rate.
TEST(NetworkHopTest, ConvergingWritersShareTheReceiversPort) {
  SimEngine e;
  auto s = Port("server", "10gbe-tcp");
  auto a = Hop(e, Port("a", "10gbe-tcp"), s);
  auto b = Hop(e, Port("b", "10gbe-tcp"), s);
  constexpr int kTotal = 4000;
  int done = 0;
  // Each client keeps 16 writes in flight: a completion issues the next.
  // The issuers live here, not in shared_ptrs that would capture themselves.
  BlockDevice* clients[] = {a.get(), b.get()};
  int issued[] = {0, 0};
  std::function<void()> issue[2];
  for (int k = 0; k < 2; ++k) {
    issue[k] = [&, k] {
      if (issued[k] == kTotal) return;
      IoRequest w{IoOp::kWrite, 0, (issued[k] % 256) * 131072ull, 131072, nullptr};
      ++issued[k];
      clients[k]->Submit(w, [&, k](Status) {
        ++done;
        issue[k]();
      });
    };
    for (int i = 0; i < 16; ++i) issue[k]();
  }
  e.Run();
  ASSERT_EQ(done, 2 * kTotal);
  const double mbps = 2 * kTotal * 131072.0 / (static_cast<double>(e.Now()) / 1e9) / 1e6;
  const double rate = 10e9 * 0.92 / 8 / 1e6 * 131072 / (131072 + 64);  // 1,149 MB/s
  EXPECT_NEAR(mbps, rate, 0.01 * rate);
  EXPECT_GT(s->RxUtilisation(e.Now()), 0.99);
}

// The data crosses untouched: the verification harness through a hop.
TEST(NetworkHopTest, DataCrossesUntouched) {
  SimEngine e;
  auto hop = Hop(e, Port("c", "25gbe-rdma"), Port("s", "25gbe-rdma"), 8 * kMiB);
  testing::VerifyOptions o;
  o.ops = 3000;
  o.seed = 5;
  o.max_in_flight = 16;
  o.max_length = std::uint64_t{256} * 1024;
  auto r = testing::RunVerify(e, *hop, o);
  EXPECT_TRUE(r.ok()) << r.first_problem;
  EXPECT_GT(r.reads, 500u);
  EXPECT_GT(r.writes, 500u);
}

TEST(NetworkHopTest, PresetsCoverTcpAndRdmaFrom1To100GbE) {
  for (const char* n : {"1gbe-tcp", "10gbe-tcp", "25gbe-tcp", "40gbe-tcp", "100gbe-tcp",
                        "10gbe-rdma", "25gbe-rdma", "40gbe-rdma", "100gbe-rdma"}) {
    auto s = NicSpec::Find(n);
    ASSERT_TRUE(s.has_value()) << n;
    EXPECT_GT(s->PayloadBytesPerNs(), 0) << n;
  }
  EXPECT_FALSE(NicSpec::Find("400gbe-carrier-pigeon").has_value());
  // 1 GbE TCP: the 110-120 MB/s of payload measured on real clusters.
  EXPECT_NEAR(NicSpec::Find("1gbe-tcp")->PayloadBytesPerNs() * 1e3, 117.5, 0.1);
}

}  // namespace
}  // namespace tierlab
