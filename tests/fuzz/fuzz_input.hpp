// A libFuzzer input read from the front: a few bytes pick the shape of a case (a tree's
// size, a parser's options), the rest is the text or bytes under test.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace psched::fuzz {

class Input {
 public:
  Input(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  // The next byte (0 once the input is used up).
  uint8_t Byte() { return used_ < size_ ? data_[used_++] : 0; }
  // The next four bytes as a big-endian signed id, any value included.
  int32_t Int32() {
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i) v = (v << 8) | Byte();
    return static_cast<int32_t>(v);
  }
  bool Empty() const { return used_ >= size_; }
  // What is left, whole.
  std::string_view Rest() {
    std::string_view rest(reinterpret_cast<const char*>(data_) + used_, size_ - used_);
    used_ = size_;
    return rest;
  }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t used_ = 0;
};

}  // namespace psched::fuzz
