// The protobuf wire format, as far as Kubernetes' generated messages use it: varint keys, varints
// (wire type 0) and length-delimited fields (2); fixed-width ones (1, 5) are read past. Every read
// is bounds-checked and throws ProtobufError.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

namespace fedhpa::api::machinery {

class ProtobufError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// One message: a sequence of (field number, wire type, value).
class WireReader {
 public:
  explicit WireReader(std::string_view data) : data_(data) {}

  struct Field {
    std::uint32_t number = 0;
    std::uint32_t wireType = 0;
    std::uint64_t varint = 0;  // wire type 0
    std::string_view bytes;    // wire type 2
  };

  bool done() const { return at_ >= data_.size(); }
  Field next();
  std::uint64_t varint();  // a bare varint, as a packed repeated integer holds its elements

 private:
  void skip(std::size_t count);

  std::string_view data_;
  std::size_t at_ = 0;
};

// Appends fields in the order written; Kubernetes' marshallers write them by ascending number, and
// so do the callers here, which is what makes the bytes equal to kube's.
class WireWriter {
 public:
  void varintField(std::uint32_t number, std::uint64_t value);
  void bytesField(std::uint32_t number, std::string_view bytes);
  const std::string& bytes() const& { return out_; }
  std::string bytes() && { return std::move(out_); }

  static void appendVarint(std::string& out, std::uint64_t value);

 private:
  std::string out_;
};

}  // namespace fedhpa::api::machinery
