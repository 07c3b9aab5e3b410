#include "proto/collective_wire.hpp"

#include "proto/frame.hpp"

namespace psched::proto {
namespace {

class Writer {
 public:
  explicit Writer(std::string& out) : out_(out) {}
  void U32(uint32_t v) {
    for (int shift = 24; shift >= 0; shift -= 8) out_.push_back(static_cast<char>(v >> shift));
  }
  void I32(int v) { U32(static_cast<uint32_t>(v)); }
  void I64(int64_t v) {
    U32(static_cast<uint32_t>(static_cast<uint64_t>(v) >> 32));
    U32(static_cast<uint32_t>(v));
  }
  void String(std::string_view s) {
    U32(static_cast<uint32_t>(s.size()));
    out_.append(s);
  }
  void Ints(const std::vector<int>& v) {
    U32(static_cast<uint32_t>(v.size()));
    for (int x : v) I32(x);
  }

 private:
  std::string& out_;
};

// Every read checks the bytes left; after a failed read ok() is false and stays so.
class Reader {
 public:
  explicit Reader(std::string_view in) : in_(in) {}
  bool ok() const { return ok_; }
  std::string_view rest() const { return in_; }
  uint32_t U32() {
    if (!Need(4)) return 0;
    auto b = [&](size_t i) { return static_cast<uint32_t>(static_cast<unsigned char>(in_[i])); };
    uint32_t v = (b(0) << 24) | (b(1) << 16) | (b(2) << 8) | b(3);
    in_.remove_prefix(4);
    return v;
  }
  int I32() { return static_cast<int>(U32()); }
  int64_t I64() {
    uint64_t high = U32();
    return static_cast<int64_t>((high << 32) | U32());
  }
  std::string String() {
    uint32_t n = U32();
    if (!Need(n)) return {};
    std::string s(in_.substr(0, n));
    in_.remove_prefix(n);
    return s;
  }
  // A count of items of `item_size` bytes each: no larger than the bytes left can hold.
  uint32_t Count(size_t item_size) {
    uint32_t n = U32();
    if (ok_ && n > in_.size() / item_size) ok_ = false;
    return ok_ ? n : 0;
  }
  std::vector<int> Ints() {
    std::vector<int> v(Count(4));
    for (int& x : v) x = I32();
    return v;
  }

 private:
  bool Need(size_t n) {
    if (ok_ && in_.size() < n) ok_ = false;
    return ok_;
  }
  std::string_view in_;
  bool ok_ = true;
};

// What both frames start with: session, id, participants.
size_t CommonSize(const std::string& id, size_t spans) {
  return 8 + 4 + id.size() + 4 + 4 * spans;
}
void WriteCommon(Writer& w, int64_t session, const std::string& id, const std::vector<int>& spans) {
  w.I64(session);
  w.String(id);
  w.Ints(spans);
}
template <typename T>
void ReadCommon(Reader& r, T& out) {
  out.session = r.I64();
  out.id = r.String();
  out.spans = r.Ints();
}

}  // namespace

std::string EncodeContributeFrame(const CollContribute& c, std::string_view blobs) {
  size_t length = CommonSize(c.id, c.spans.size()) + 4 + 8 * c.nodes.size() + blobs.size();
  std::string out;
  out.reserve(kHeaderSize + length);
  AppendFrameHeader(out, MsgType::kCollContribute, static_cast<uint32_t>(length));
  Writer w(out);
  WriteCommon(w, c.session, c.id, c.spans);
  w.U32(static_cast<uint32_t>(c.nodes.size()));
  for (size_t i = 0; i < c.nodes.size(); ++i) {
    w.I32(c.nodes[i]);
    w.U32(i < c.sizes.size() ? c.sizes[i] : 0);
  }
  out.append(blobs);
  return out;
}

std::string EncodeResultFrame(const CollResult& r, std::string_view blobs) {
  size_t length = CommonSize(r.id, r.spans.size()) + 4 + r.error.size() + blobs.size();
  std::string out;
  out.reserve(kHeaderSize + length);
  AppendFrameHeader(out, MsgType::kCollResult, static_cast<uint32_t>(length));
  Writer w(out);
  WriteCommon(w, r.session, r.id, r.spans);
  w.String(r.error);
  out.append(blobs);
  return out;
}

std::optional<CollContribute> DecodeContribute(std::string_view payload, std::string_view* blobs) {
  Reader r(payload);
  CollContribute c;
  ReadCommon(r, c);
  uint32_t n = r.Count(8);
  c.nodes.reserve(n);
  c.sizes.reserve(n);
  for (uint32_t i = 0; i < n; ++i) {
    c.nodes.push_back(r.I32());
    c.sizes.push_back(r.U32());
  }
  if (!r.ok()) return std::nullopt;
  *blobs = r.rest();
  return c;
}

std::optional<CollResult> DecodeResult(std::string_view payload, std::string_view* blobs) {
  Reader r(payload);
  CollResult result;
  ReadCommon(r, result);
  result.error = r.String();
  if (!r.ok()) return std::nullopt;
  *blobs = r.rest();
  return result;
}

}  // namespace psched::proto
