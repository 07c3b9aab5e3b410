// Forwarding header: the helpers moved to tests/support/ (psched_test_support). New
// tests include the tests/support/ headers they use; this one goes once none include it.
#pragma once

#include "tests/support/allocation.hpp"
#include "tests/support/eventually.hpp"
#include "tests/support/proc_fs.hpp"
#include "tests/support/process.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/support/text.hpp"
