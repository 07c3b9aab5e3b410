#include "pmix/fabric.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>

namespace psched::pmix {
namespace {

class FabricTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = std::filesystem::temp_directory_path() /
            ("psched-fabric-" + std::to_string(getpid()) + "-" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(root_ / "class");
  }
  void TearDown() override { std::filesystem::remove_all(root_); }
  std::filesystem::path root_;
};

TEST_F(FabricTest, NoDeviceClassesMeansNoFabric) {
  EXPECT_FALSE(NodeHasFabric(root_));
}

TEST_F(FabricTest, EmptyInfinibandClassMeansNoFabric) {
  std::filesystem::create_directories(root_ / "class/infiniband");
  EXPECT_FALSE(NodeHasFabric(root_));
}

TEST_F(FabricTest, AnRdmaDeviceIsAFabric) {
  std::filesystem::create_directories(root_ / "class/infiniband/mlx5_0");
  EXPECT_TRUE(NodeHasFabric(root_));
}

TEST_F(FabricTest, ASlingshotNicIsAFabric) {
  std::filesystem::create_directories(root_ / "class/cxi/cxi0");
  EXPECT_TRUE(NodeHasFabric(root_));
}

TEST_F(FabricTest, AnUnreadableClassCountsAsAFabric) {
  // A file where the directory should be: not "absent", so not provably fabric-free.
  std::filesystem::create_directories(root_ / "class");
  {
    std::FILE* f = std::fopen((root_ / "class/cxi").c_str(), "w");
    std::fclose(f);
  }
  EXPECT_TRUE(NodeHasFabric(root_));
}

}  // namespace
}  // namespace psched::pmix
