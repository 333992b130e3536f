// Doubles in error messages.
#ifndef TESSERA_CORE_COMMON_DOUBLE_TEXT_H_
#define TESSERA_CORE_COMMON_DOUBLE_TEXT_H_

#include <string>

namespace tessera {

// `value` as the shortest text that reads back as the same double ("0.1", "10",
// "1e+308", "nan", "-inf"; std::to_chars). std::to_string prints %f, which turns 1e-9
// into "0.000000" and 1e308 into 309 digits.
std::string DoubleText(double value);

}  // namespace tessera

#endif  // TESSERA_CORE_COMMON_DOUBLE_TEXT_H_
