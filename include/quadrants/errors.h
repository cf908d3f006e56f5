// include/quadrants/errors.h: exception types of the core; bindings map each to its Python exception.
#pragma once

#include <stdexcept>
#include <string>

namespace qd {

// User errors: the message is a whole sentence naming what was given and what was expected.
struct TypeError : std::runtime_error { using std::runtime_error::runtime_error; };    // -> TypeError
struct ValueError : std::runtime_error { using std::runtime_error::runtime_error; };   // -> ValueError
struct IndexError : std::runtime_error { using std::runtime_error::runtime_error; };   // -> IndexError
struct AssertionError : std::runtime_error { using std::runtime_error::runtime_error; };  // -> AssertionError
// A kernel indexed an array out of its shape (bounds checks on): an IndexError that Python sees as
// quadrants.base.errors.QuadrantsOutOfBoundError, also upstream's QuadrantsAssertionError.
struct OutOfBoundError : IndexError { using IndexError::IndexError; };
// Wrong arguments in a kernel call (missing, extra, unknown keyword): a TypeError that Python sees as
// quadrants.base.errors.KernelArgumentError, both QuadrantsSyntaxError (as upstream raises) and TypeError.
struct ArgumentError : TypeError { using TypeError::TypeError; };
// An argument of the wrong type (a float for an integer parameter, a non-array for an array one): a TypeError
// that Python sees as upstream's QuadrantsRuntimeTypeError (a RuntimeError and a TypeError).
struct ArgumentTypeError : TypeError { using TypeError::TypeError; };
// An array argument whose dtype, dimensions or element shape do not fit its annotation: Python sees
// quadrants.base.errors.InvalidArgumentValueError, both ValueError (as upstream raises it, "Invalid value for
// argument ...") and TypeError.
struct ArgumentValueError : TypeError { using TypeError::TypeError; };

// A user error inside a kernel's source, at a Python line/column (1-based line, 0-based column;
// 0 when unknown). The Python frontend adds the source line and a caret.
struct KernelUserError : std::runtime_error {
  enum class Kind { syntax, type };
  KernelUserError(Kind kind, const std::string& message, int line, int col)
      : std::runtime_error(message), kind(kind), line(line), col(col) {}
  Kind kind;
  int line;
  int col;
};

// The system compiler or NVRTC rejected generated code (our bug or an environment problem).
struct CompileError : std::runtime_error { using std::runtime_error::runtime_error; };

// Internal errors: a broken invariant inside quadrants.
struct InternalError : std::logic_error { using std::logic_error::logic_error; };

}  // namespace qd

#define QD_ASSERT(cond, what)                                                              \
  do {                                                                                     \
    if (!(cond)) throw ::qd::InternalError(std::string("internal error: ") + (what) +     \
                                           " (" __FILE__ ":" + std::to_string(__LINE__) + ")"); \
  } while (0)
