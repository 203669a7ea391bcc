#pragma once
// Carries one message from a sender's port to a receiver's (NicModel.h):
// the sender's CPU takes it, then it goes on the wire a segment at a time,
// the first holding the header and up to NicModel::kSegmentPayload bytes,
// each next one when the one before has left. Whatever else the port sends
// meanwhile (another flow's message, a 64-byte request) takes its turn
// between two segments instead of waiting behind the whole message, as
// TCP's flows take turns in a qdisc. While such a message is being sent,
// and until every message that came to the port meanwhile has its place,
// a message takes its place on the wire only when its CPU is done with it
// (a deferred send), so one still waiting for the CPU holds no wire time
// against segments that are ready, and none passes a message the CPU
// finished before it. Otherwise the wire takes messages in the CPU's order
// and a message's slot is taken at once (one engine event fewer a message:
// the common case, small messages only, runs as fast as before segments).
// Alone on its ports a message costs what it would whole: its segments
// follow each other on both wires without a gap, and the receiver's CPU
// takes it once its last segment is in.
//
// Threading: the engine's thread.

#include <algorithm>
#include <cstdint>
#include <utility>

#include "tiering/core/Engine.h"
#include "tiering/targets/NicModel.h"

namespace tierlab {

namespace carry_detail {

// The last segment has left at `sent`: the receiver takes it.
template <typename Arrived>
void Deliver(Engine& engine, NicModel& from, NicModel& to, Nanos sent, std::uint64_t segment,
             Arrived arrived) {
  engine.ScheduleAt(
      sent, [&engine, &from, &to, sent, segment, arrived = std::move(arrived)]() mutable {
        engine.ScheduleAt(to.Receive(sent, from.spec().one_way_latency, segment, true),
                          std::move(arrived));
      });
}

// `left` bytes of a message of several segments (a deferred send) still to
// send, the first segment also carrying `header`, now, which is when they
// are ready.
template <typename Arrived>
void SendSegment(Engine& engine, NicModel& from, NicModel& to, std::uint64_t left,
                 std::uint64_t header, Arrived arrived) {
  const std::uint64_t segment = std::min(left, NicModel::kSegmentPayload + header);
  const Nanos sent = from.Send(engine.Now(), segment);
  if (segment == left) {
    from.EndDeferredSend();
    Deliver(engine, from, to, sent, segment, std::move(arrived));
    return;
  }
  engine.ScheduleAt(
      sent, [&engine, &from, &to, sent, left, segment, arrived = std::move(arrived)]() mutable {
        to.Receive(sent, from.spec().one_way_latency, segment, false);
        SendSegment(engine, from, to, left - segment, 0, std::move(arrived));
      });
}

}  // namespace carry_detail

// Sends `bytes` (header and payload) from `from` to `to` now; `arrived`
// (a callable taking nothing, small enough for a Task with this call's
// context) runs when the receiver has the whole message.
template <typename Arrived>
void CarryMessage(Engine& engine, NicModel& from, NicModel& to, std::uint64_t bytes,
                  Arrived arrived) {
  const std::uint64_t header = from.spec().header_bytes;
  const bool segmented = bytes > NicModel::kSegmentPayload + header;
  const Nanos ready = from.SendCpu(engine.Now());
  if (!segmented && !from.SendsDeferred()) {
    carry_detail::Deliver(engine, from, to, from.Send(ready, bytes), bytes, std::move(arrived));
    return;
  }
  from.BeginDeferredSend();
  engine.ScheduleAt(ready, [&engine, &from, &to, bytes, header, segmented,
                            arrived = std::move(arrived)]() mutable {
    if (segmented) {
      carry_detail::SendSegment(engine, from, to, bytes, header, std::move(arrived));
    } else {
      const Nanos sent = from.Send(engine.Now(), bytes);
      from.EndDeferredSend();
      carry_detail::Deliver(engine, from, to, sent, bytes, std::move(arrived));
    }
  });
}

}  // namespace tierlab
