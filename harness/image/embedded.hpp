// What `image: auto` needs, built into the noisefloor binary itself, so that it works from any
// build directory, from an installed binary and from a copy of the binary alone.
#pragma once

#include <string_view>

namespace noisefloor::image {

// The static nf-probe executable (the image's entrypoint), byte for byte.
std::string_view embedded_probe();
// The static nf-noop executable (the launcher overhead's no-op), byte for byte.
std::string_view embedded_noop();
// containers/auto/image.json, the image recipe.
std::string_view embedded_recipe();

}  // namespace noisefloor::image
