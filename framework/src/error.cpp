#include "pacer/error.hpp"

namespace pacer {

// Key functions: the vtables and type info of the error classes live here (see error.hpp).
Error::~Error() = default;
InputError::~InputError() = default;
FailedError::~FailedError() = default;
DeviceFailedError::~DeviceFailedError() = default;

}  // namespace pacer
