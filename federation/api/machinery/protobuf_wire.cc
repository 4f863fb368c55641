#include "federation/api/machinery/protobuf_wire.h"

namespace fedhpa::api::machinery {

WireReader::Field WireReader::next() {
  const std::uint64_t key = varint();
  Field field;
  field.number = static_cast<std::uint32_t>(key >> 3);
  field.wireType = static_cast<std::uint32_t>(key & 7);
  if (field.number == 0) throw ProtobufError("field number 0 is not valid");
  switch (field.wireType) {
    case 0:
      field.varint = varint();
      break;
    case 1:
      skip(8);
      break;
    case 2: {
      const std::uint64_t length = varint();
      if (length > data_.size() - at_) throw ProtobufError("length-delimited field runs past the end of the message");
      field.bytes = data_.substr(at_, length);
      at_ += length;
      break;
    }
    case 5:
      skip(4);
      break;
    default:
      throw ProtobufError("unsupported wire type " + std::to_string(field.wireType));
  }
  return field;
}

std::uint64_t WireReader::varint() {
  std::uint64_t value = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (at_ >= data_.size()) throw ProtobufError("truncated varint");
    const auto byte = static_cast<std::uint8_t>(data_[at_++]);
    value |= static_cast<std::uint64_t>(byte & 0x7f) << shift;
    if (!(byte & 0x80)) return value;
  }
  throw ProtobufError("varint longer than 10 bytes");
}

void WireReader::skip(std::size_t count) {
  if (count > data_.size() - at_) throw ProtobufError("fixed-width field runs past the end of the message");
  at_ += count;
}

void WireWriter::appendVarint(std::string& out, std::uint64_t value) {
  while (value >= 0x80) {
    out += static_cast<char>((value & 0x7f) | 0x80);
    value >>= 7;
  }
  out += static_cast<char>(value);
}

void WireWriter::varintField(std::uint32_t number, std::uint64_t value) {
  appendVarint(out_, static_cast<std::uint64_t>(number) << 3);
  appendVarint(out_, value);
}

void WireWriter::bytesField(std::uint32_t number, std::string_view bytes) {
  appendVarint(out_, static_cast<std::uint64_t>(number) << 3 | 2);
  appendVarint(out_, bytes.size());
  out_.append(bytes);
}

}  // namespace fedhpa::api::machinery
