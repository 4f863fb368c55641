#include "federation/common/body_lines.h"

#include <cpprest/producerconsumerstream.h>
#include <gtest/gtest.h>

#include <chrono>
#include <future>
#include <string>
#include <vector>

namespace fedhpa {
namespace {

// A streamed body whose bytes arrive in the pieces a test chooses, as a watch's do.
class Body {
 public:
  void arrive(std::string piece) {
    pieces_.push_back(std::move(piece));
    const std::string& kept = pieces_.back();  // putn_nocopy reads it after returning
    buffer_.putn_nocopy(reinterpret_cast<const std::uint8_t*>(kept.data()), kept.size()).wait();
  }
  void end() { buffer_.close(std::ios_base::out).wait(); }
  concurrency::streams::istream reader() { return buffer_.create_istream(); }

 private:
  concurrency::streams::producer_consumer_buffer<std::uint8_t> buffer_;
  std::vector<std::string> pieces_;
};

std::vector<std::string> allLines(BodyLines& lines) {
  std::vector<std::string> out;
  while (auto line = lines.next()) out.emplace_back(*line);
  return out;
}

TEST(BodyLinesTest, LinesSplitAcrossPiecesComeWhole) {
  Body body;
  body.arrive("{\"type\":\"ADDED\"}\n{\"type\":");
  body.arrive("\"MODIFIED\"}\n{\"ty");
  body.arrive("pe\":\"DELETED\"}\n");
  body.end();
  BodyLines lines(body.reader());
  EXPECT_EQ(allLines(lines), (std::vector<std::string>{"{\"type\":\"ADDED\"}", "{\"type\":\"MODIFIED\"}",
                                                       "{\"type\":\"DELETED\"}"}));
}

TEST(BodyLinesTest, BlankLinesAreSkippedAndCrlfKeepsItsReturn) {
  Body body;
  body.arrive("\r\n\n{\"a\":1}\r\n\n\n{\"b\":2}\n");
  body.end();
  BodyLines lines(body.reader());
  EXPECT_EQ(allLines(lines), (std::vector<std::string>{"{\"a\":1}\r", "{\"b\":2}"}));
}

TEST(BodyLinesTest, AnUnfinishedLastLineIsNotAMessage) {
  Body body;
  body.arrive("{\"a\":1}\n{\"b\":");
  body.end();
  BodyLines lines(body.reader());
  EXPECT_EQ(allLines(lines), std::vector<std::string>{"{\"a\":1}"});
}

TEST(BodyLinesTest, ALineLongerThanOneReadComesWhole) {
  const std::string big = "{\"x\":\"" + std::string(300 * 1024, 'y') + "\"}";
  Body body;
  for (std::size_t at = 0; at < big.size(); at += 10000) body.arrive(big.substr(at, 10000));
  body.arrive("\n{\"small\":true}\n");
  body.end();
  BodyLines lines(body.reader());
  const auto got = allLines(lines);
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0], big);
  EXPECT_EQ(got[1], "{\"small\":true}");
}

TEST(BodyLinesTest, NextWaitsForTheLineToArrive) {
  Body body;
  BodyLines lines(body.reader());
  auto first = std::async(std::launch::async, [&] { return std::string(lines.next().value_or("<end>")); });
  EXPECT_EQ(first.wait_for(std::chrono::milliseconds(100)), std::future_status::timeout);
  body.arrive("{\"late\":");
  body.arrive("1}\n");
  EXPECT_EQ(first.get(), "{\"late\":1}");
  body.end();
  EXPECT_FALSE(lines.next().has_value());
}

}  // namespace
}  // namespace fedhpa
