// A shared library loaded when first needed (dlopen), not when noisefloor starts.
//
// For the dependencies only some commands use: libcurl (talking to engines) and libcrypto
// (hashing). Linked, they were loaded by every command, `cv` of a hundred benchmarks included:
// about 25 ms of start-up and 7 MB of resident memory, more than the command's own work. Loaded
// here, they cost only the commands that call them. A library stays loaded for the process's life.
#pragma once

#include <dlfcn.h>

#include <initializer_list>
#include <stdexcept>
#include <string>

namespace noisefloor::model {

class SharedLibrary {
 public:
  // The first of `sonames` that loads; std::runtime_error saying why, and `install` (what to do),
  // when none does.
  SharedLibrary(std::initializer_list<const char*> sonames, const std::string& install) : install_(install) {
    std::string why;
    for (const char* soname : sonames) {
      handle_ = ::dlopen(soname, RTLD_NOW | RTLD_LOCAL);
      if (handle_ != nullptr) return;
      if (why.empty()) why = ::dlerror();
    }
    throw std::runtime_error(why + ": " + install_);
  }

  // The function `name`, as type F; std::runtime_error when the library lacks it.
  template <typename F>
  F function(const char* name) const {
    void* symbol = ::dlsym(handle_, name);
    if (symbol == nullptr)
      throw std::runtime_error(std::string("the library has no ") + name + ": " + install_);
    return reinterpret_cast<F>(symbol);  // NOLINT(cppcoreguidelines-pro-type-reinterpret-cast): dlsym's way
  }

 private:
  void* handle_ = nullptr;
  std::string install_;
};

}  // namespace noisefloor::model
