// The GD graphics library (Debian's libgd-dev): ternd reads uploaded images and writes their
// thumbnails with it. Only TernServer's Thumbnailer imports this module.
#include <gd.h>
