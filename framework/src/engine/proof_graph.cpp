// Naming a stage's failure (proof_graph.hpp).
#include "proof_graph.hpp"

#include <new>
#include <string>

#include <fmt/format.h>

#include "pacer/error.hpp"

namespace pacer {

std::exception_ptr name_failure(std::exception_ptr error, JobId job, const NodeSpec& node) {
  constexpr const char* kBasis[] = {"A", "B1", "C", "H"};
  const std::string where = fmt::format("proof {}: stage {}{}", job, stage_name(node.stage),
                                        node.stage == Stage::msm_g1
                                            ? fmt::format(" ({})", kBasis[static_cast<int>(node.basis)])
                                            : "");
  try {
    std::rethrow_exception(error);
  } catch (const std::bad_alloc&) {
    return error;  // the host's one line for out of memory says what to do
  } catch (const Error& e) {
    if (e.code() == ExitCode::bad_input) return std::make_exception_ptr(InputError(where + ": " + e.what()));
    return std::make_exception_ptr(FailedError(where + ": " + e.what()));
  } catch (const std::exception& e) {
    return std::make_exception_ptr(FailedError(where + ": " + e.what()));
  } catch (...) {
    return std::make_exception_ptr(FailedError(where + ": unknown exception"));
  }
}

}  // namespace pacer
