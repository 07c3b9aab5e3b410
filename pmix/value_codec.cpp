#include "pmix/value_codec.hpp"

#include <cstdlib>
#include <cstring>

namespace psched::pmix {

Result<std::string> PackValue(const pmix_value_t& value) {
  pmix_data_buffer_t buf;
  PMIX_DATA_BUFFER_CONSTRUCT(&buf);
  pmix_value_t copy = value;  // PMIx_Data_pack takes a non-const pointer; it only reads
  pmix_status_t rc = PMIx_Data_pack(nullptr, &buf, &copy, 1, PMIX_VALUE);
  if (rc != PMIX_SUCCESS) {
    PMIX_DATA_BUFFER_DESTRUCT(&buf);
    return Fail(ErrorCode::kInvalidArgument,
                std::string("packing a PMIx value: ") + PMIx_Error_string(rc));
  }
  pmix_byte_object_t bo;
  rc = PMIx_Data_unload(&buf, &bo);
  PMIX_DATA_BUFFER_DESTRUCT(&buf);
  if (rc != PMIX_SUCCESS) {
    return Fail(ErrorCode::kInternal,
                std::string("unloading a PMIx buffer: ") + PMIx_Error_string(rc));
  }
  std::string out(bo.bytes != nullptr ? bo.bytes : "", bo.size);
  free(bo.bytes);
  return out;
}

Result<void> UnpackValue(const std::string& bytes, pmix_value_t* out) {
  pmix_data_buffer_t buf;
  PMIX_DATA_BUFFER_CONSTRUCT(&buf);
  // PMIx_Data_load takes ownership of malloc'd bytes.
  char* raw = static_cast<char*>(malloc(bytes.size() == 0 ? 1 : bytes.size()));
  if (raw == nullptr) throw std::bad_alloc();
  // Packed bytes, not a C string: the length travels in the byte object.
  std::memcpy(raw, bytes.data(), bytes.size());  // NOLINT(bugprone-not-null-terminated-result)
  pmix_byte_object_t bo{raw, bytes.size()};
  PMIx_Data_load(&buf, &bo);
  int32_t n = 1;
  pmix_value_t* tmp = nullptr;
  PMIX_VALUE_CREATE(tmp, 1);
  pmix_status_t rc = PMIx_Data_unpack(nullptr, &buf, tmp, &n, PMIX_VALUE);
  PMIX_DATA_BUFFER_DESTRUCT(&buf);
  if (rc != PMIX_SUCCESS || n != 1) {
    PMIX_VALUE_FREE(tmp, 1);
    return Fail(ErrorCode::kProtocol,
                std::string("unpacking a PMIx value: ") + PMIx_Error_string(rc));
  }
  rc = PMIx_Value_xfer(out, tmp);
  PMIX_VALUE_FREE(tmp, 1);
  if (rc != PMIX_SUCCESS) {
    return Fail(ErrorCode::kInternal,
                std::string("copying a PMIx value: ") + PMIx_Error_string(rc));
  }
  return {};
}

}  // namespace psched::pmix
