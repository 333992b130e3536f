#include "core/checkpoint/safetensors.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "core/checkpoint/file_io.h"

namespace tessera::checkpoint {
namespace {

// A fresh directory under the test's TMPDIR.
std::string TempDir() {
  std::string pattern =
      std::string(std::getenv("TEST_TMPDIR") ? std::getenv("TEST_TMPDIR") : "/tmp") +
      "/safetensors_XXXXXX";
  return mkdtemp(pattern.data());
}

std::string WriteFile(const std::string& dir, const std::string& name, const std::string& bytes) {
  const std::string path = dir + "/" + name;
  EXPECT_TRUE(WriteFileDurably(path, {{bytes.data(), bytes.size()}}).ok());
  return path;
}

// The 8-byte little-endian length and the JSON, as the format defines them.
std::string RawFile(const std::string& json, const std::string& data) {
  std::string out(8, '\0');
  uint64_t n = json.size();
  for (int i = 0; i < 8; ++i) out[i] = static_cast<char>((n >> (8 * i)) & 0xFF);
  return out + json + data;
}

TEST(Safetensors, HeaderLaysOutEntriesInOrderAndPads) {
  std::vector<SafetensorsEntry> entries = {{"a", DType::kF32, Shape{2, 3}, 0, 0},
                                           {"b.c", DType::kI64, Shape{}, 0, 0}};
  const std::string header = EncodeSafetensorsHeader(entries, {{"k", "v"}});
  EXPECT_EQ(entries[0].begin, 0u);
  EXPECT_EQ(entries[0].end, 24u);
  EXPECT_EQ(entries[1].begin, 24u);
  EXPECT_EQ(entries[1].end, 32u);
  ASSERT_EQ(header.size() % 8, 0u);
  uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | static_cast<unsigned char>(header[i]);
  EXPECT_EQ(n, header.size() - 8);
  const std::string json = header.substr(8);
  EXPECT_EQ(json.substr(0, json.find_last_not_of(' ') + 1),
            R"({"__metadata__":{"k":"v"},"a":{"dtype":"F32","shape":[2,3],"data_offsets":[0,24]},)"
            R"("b.c":{"dtype":"I64","shape":[],"data_offsets":[24,32]}})");
}

TEST(Safetensors, ReadsBackWhatItWrote) {
  const std::string dir = TempDir();
  std::vector<SafetensorsEntry> entries = {{"w", DType::kF64, Shape{3}, 0, 0}};
  const std::string header = EncodeSafetensorsHeader(entries, {});
  const double data[3] = {1.5, -2, 3};
  const std::string path = WriteFile(dir, "x.safetensors",
                                     header + std::string(reinterpret_cast<const char*>(data), 24));
  Result<ReadOnlyFile> file = ReadOnlyFile::Open(path);
  ASSERT_TRUE(file.ok());
  Result<SafetensorsHeader> read = ReadSafetensorsHeader(*file);
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  EXPECT_EQ(read->data_start, header.size());
  const SafetensorsEntry* w = read->Find("w");
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(w->dtype, DType::kF64);
  EXPECT_EQ(w->shape, Shape{3});
  double back[3];
  ASSERT_TRUE(file->ReadAt(read->data_start + w->begin, back, sizeof back).ok());
  EXPECT_EQ(std::memcmp(back, data, sizeof back), 0);
  EXPECT_EQ(read->Find("v"), nullptr);
  ASSERT_TRUE(RemoveTree(dir).ok());
}

TEST(Safetensors, DamagedHeadersAreDataLossNamingTheFile) {
  const std::string dir = TempDir();
  struct Case {
    std::string bytes;
    const char* message;
  };
  const std::string one_f32 = R"({"t":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})";
  const Case cases[] = {
      {"abc", "less than the 8-byte header length"},
      {RawFile("{}", "").substr(0, 7), "less than the 8-byte header length"},
      {RawFile(one_f32, "").substr(0, 20), "only 12 bytes follow"},
      {RawFile(one_f32, "xy"), "tensor \"t\" needs data bytes [0, 4) but the file has 2"},
      {RawFile("{\"t\":", ""), "malformed safetensors header"},
      {RawFile("[]", ""), "the header must be a JSON object"},
      {RawFile(R"({"t":{"dtype":"U8","shape":[1],"data_offsets":[0,1]}})", "x"),
       "unsupported safetensors dtype \"U8\""},
      {RawFile(R"({"t":{"dtype":"F32","shape":[2],"data_offsets":[0,4]}})", "xxxxxxxx"),
       "do not hold its 8 bytes"},
      {RawFile(R"({"t":{"dtype":"F32","shape":[-1],"data_offsets":[0,4]}})", "xxxx"),
       "shape dim is -1"},
      {RawFile(R"({"t":{"shape":[1],"data_offsets":[0,4]}})", "xxxx"), "lacks one of"},
      {RawFile(R"({"__metadata__":{"a":1}})", ""), "__metadata__ \"a\" must be a string"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
    const std::string path = WriteFile(dir, "case" + std::to_string(i), cases[i].bytes);
    Result<ReadOnlyFile> file = ReadOnlyFile::Open(path);
    ASSERT_TRUE(file.ok());
    Result<SafetensorsHeader> read = ReadSafetensorsHeader(*file);
    ASSERT_FALSE(read.ok()) << i;
    EXPECT_EQ(read.status().code(), StatusCode::kDataLoss) << i;
    EXPECT_NE(read.status().message().find(path), std::string::npos) << read.status().message();
    EXPECT_NE(read.status().message().find(cases[i].message), std::string::npos)
        << i << ": " << read.status().message();
  }
  // A length field past the limit is refused before anything is allocated.
  std::string huge(8, '\xFF');
  const std::string path = WriteFile(dir, "huge", huge + "{}");
  Result<SafetensorsHeader> read = ReadSafetensorsHeader(*ReadOnlyFile::Open(path));
  ASSERT_FALSE(read.ok());
  EXPECT_NE(read.status().message().find("exceeds"), std::string::npos);
  ASSERT_TRUE(RemoveTree(dir).ok());
}

TEST(Safetensors, DTypeNames) {
  for (DType d : {DType::kF32, DType::kF64, DType::kI32, DType::kI64, DType::kF16, DType::kBF16}) {
    EXPECT_EQ(*ParseSafetensorsDType(SafetensorsDTypeName(d)), d);
  }
  EXPECT_STREQ(SafetensorsDTypeName(DType::kBF16), "BF16");
  EXPECT_FALSE(ParseSafetensorsDType("f32").ok());
}

TEST(FileIo, MissingFileIsNotFoundAndShortReadIsDataLoss) {
  const std::string dir = TempDir();
  Result<ReadOnlyFile> missing = ReadOnlyFile::Open(dir + "/nope");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
  EXPECT_EQ(missing.status().message(), "missing file " + dir + "/nope");
  const std::string path = WriteFile(dir, "short", "abcd");
  Result<ReadOnlyFile> file = ReadOnlyFile::Open(path);
  char buf[8];
  Status s = file->ReadAt(2, buf, 4);
  EXPECT_EQ(s.code(), StatusCode::kDataLoss);
  EXPECT_EQ(s.message(), "truncated file " + path + ": it has 4 bytes, reading bytes [2, 6)");
  EXPECT_EQ(WriteFileDurably(path, {}).code(), StatusCode::kDataLoss);  // exists already
  EXPECT_EQ(ParentDirectory("a/b/"), "a");
  EXPECT_EQ(ParentDirectory("b"), ".");
  EXPECT_EQ(ParentDirectory("/b"), "/");
  ASSERT_TRUE(MakeDirectory(dir + "/sub").ok());
  WriteFile(dir + "/sub", "f", "x");
  ASSERT_TRUE(RemoveTree(dir).ok());
  EXPECT_FALSE(PathExists(dir));
}

}  // namespace
}  // namespace tessera::checkpoint
