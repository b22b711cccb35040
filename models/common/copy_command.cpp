#include "models/common/copy_command.h"

namespace arbsim {

const char* to_string(CopyDir d) {
  switch (d) {
    case CopyDir::H2D: return "h2d";
    case CopyDir::D2H: return "d2h";
    case CopyDir::P2P: return "p2p";
  }
  return "?";
}

}  // namespace arbsim
