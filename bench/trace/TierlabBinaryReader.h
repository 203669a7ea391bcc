#pragma once
// Reads tierlab's binary trace format (TierlabBinaryFormat.h). A wrong magic,
// version or record size fails at the header; a record count that does not
// match the file, or a partial record, fails as truncation; an op > 3 or
// nonzero reserved bytes make a bad record.

#include "bench/trace/BinaryTraceReader.h"

namespace tierlab {

class TierlabBinaryReader final : public BinaryTraceReader {
 public:
  TierlabBinaryReader(std::unique_ptr<std::istream> in, std::string name,
                      const TraceOptions& options);
  TraceFormat format() const override { return TraceFormat::kTierlabBin; }

 private:
  RecordResult Decode(const unsigned char* p, TraceRecord* record) override;
};

}  // namespace tierlab
