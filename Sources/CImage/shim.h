#ifndef TERN_CIMAGE_SHIM_H
#define TERN_CIMAGE_SHIM_H
// Image previews for the terminal adapter: libgd decodes (PNG, JPEG, GIF, WebP, BMP), libchafa turns
// the pixels into symbol cells with 256-colour pens. Both are loaded with dlopen on the first preview,
// so a tern that shows no image never maps them (gd.h only gives the image struct's layout).
#include <dlfcn.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <gd.h>
#include <sys/ioctl.h>

typedef gdImagePtr (*cti_gd_from_ptr)(int size, void *data);
typedef int (*cti_gd_pixel)(gdImagePtr im, int x, int y);
typedef void (*cti_gd_destroy)(gdImagePtr im);
typedef void *(*cti_new)(void);
typedef void (*cti_unref)(void *);
typedef void (*cti_add_tags)(void *map, int tags);
typedef void (*cti_set_geometry)(void *config, int width, int height);
typedef void (*cti_set_mode)(void *config, int mode);
typedef void (*cti_set_map)(void *config, const void *map);
typedef void *(*cti_canvas_new)(const void *config);
typedef void (*cti_draw)(void *canvas, int pixel_type, const uint8_t *pixels, int width, int height, int rowstride);
typedef uint32_t (*cti_char_at)(void *canvas, int x, int y);
typedef void (*cti_colors_at)(void *canvas, int x, int y, int *fg, int *bg);

/// Whether libgd and libchafa could be loaded (1), not (0); tries once.
static inline int cti_available(void) {
    static int state = -1;
    if (state >= 0) return state;
    void *gd = dlopen("libgd.so.3", RTLD_LAZY | RTLD_LOCAL);
    void *chafa = dlopen("libchafa.so.0", RTLD_LAZY | RTLD_LOCAL);
    state = (gd != NULL && chafa != NULL) ? 1 : 0;
    return state;
}

static inline void *cti_sym(const char *lib, const char *name) {
    void *h = dlopen(lib, RTLD_LAZY | RTLD_LOCAL | RTLD_NOLOAD);
    return h ? dlsym(h, name) : NULL;
}

/// Decodes `data` (PNG, JPEG, GIF, WebP or BMP, told by its first bytes; PNG otherwise) with libgd. NULL when
/// it is not an image, or one of more than 40 million pixels; else the caller destroys it.
static inline gdImagePtr cti_decode(const void *data, int size) {
    static const char *loaders[] = { "gdImageCreateFromPngPtr", "gdImageCreateFromJpegPtr", "gdImageCreateFromGifPtr",
                                     "gdImageCreateFromWebpPtr", "gdImageCreateFromBmpPtr" };
    const uint8_t *b = (const uint8_t *)data;
    int first = 0;
    if (size > 3 && b[0] == 0xFF && b[1] == 0xD8) first = 1;
    else if (size > 3 && b[0] == 'G' && b[1] == 'I' && b[2] == 'F') first = 2;
    else if (size > 12 && memcmp(b, "RIFF", 4) == 0 && memcmp(b + 8, "WEBP", 4) == 0) first = 3;
    else if (size > 2 && b[0] == 'B' && b[1] == 'M') first = 4;
    cti_gd_from_ptr load = (cti_gd_from_ptr)cti_sym("libgd.so.3", loaders[first]);
    cti_gd_destroy destroy = (cti_gd_destroy)cti_sym("libgd.so.3", "gdImageDestroy");
    if (!load || !destroy || size <= 0) return NULL;
    gdImagePtr im = load(size, (void *)data);
    if (!im) return NULL;
    int w = gdImageSX(im), h = gdImageSY(im);
    if (w < 1 || h < 1 || (long)w * h > 40L * 1000 * 1000) { destroy(im); return NULL; }
    return im;
}

/// Decodes `data` and renders it into at most `cols` × `max_rows` cells, keeping its aspect (a cell is about
/// twice as tall as wide). Writes each cell's character and its fg/bg palette pens (16–255; -1: none) row
/// by row with `cols` cells a row; `*used_cols` gets the width used. Returns the rows used, 0 on failure.
static inline int cti_render(const void *data, int size, int cols, int max_rows, uint32_t *chars, int *fg, int *bg, int *used_cols) {
    if (!cti_available() || cols < 1 || max_rows < 1 || size <= 0) return 0;
    cti_gd_pixel pixel = (cti_gd_pixel)cti_sym("libgd.so.3", "gdImageGetTrueColorPixel");
    cti_gd_destroy destroy = (cti_gd_destroy)cti_sym("libgd.so.3", "gdImageDestroy");
    if (!pixel || !destroy) return 0;
    gdImagePtr im = cti_decode(data, size);
    if (!im) return 0;
    int w = gdImageSX(im), h = gdImageSY(im);
    int rows = (int)((double)cols * h / w / 2.0 + 0.5);
    int width = cols;
    if (rows > max_rows) {
        rows = max_rows;
        width = (int)((double)rows * 2.0 * w / h + 0.5);
        if (width > cols) width = cols;
    }
    if (rows < 1) rows = 1;
    if (width < 1) width = 1;
    uint8_t *rgba = malloc((size_t)w * h * 4);
    if (!rgba) { destroy(im); return 0; }
    for (int y = 0; y < h; y++) {
        for (int x = 0; x < w; x++) {
            int c = pixel(im, x, y);
            uint8_t *p = rgba + ((size_t)y * w + x) * 4;
            p[0] = (c >> 16) & 0xFF; p[1] = (c >> 8) & 0xFF; p[2] = c & 0xFF;
            int a = (c >> 24) & 0x7F;  // gd: 0 opaque … 127 transparent
            p[3] = (uint8_t)(255 - a * 255 / 127);
        }
    }
    destroy(im);
    const char *L = "libchafa.so.0";
    cti_new map_new = (cti_new)cti_sym(L, "chafa_symbol_map_new");
    cti_add_tags add_tags = (cti_add_tags)cti_sym(L, "chafa_symbol_map_add_by_tags");
    cti_new config_new = (cti_new)cti_sym(L, "chafa_canvas_config_new");
    cti_set_geometry set_geometry = (cti_set_geometry)cti_sym(L, "chafa_canvas_config_set_geometry");
    cti_set_mode set_mode = (cti_set_mode)cti_sym(L, "chafa_canvas_config_set_canvas_mode");
    cti_set_map set_map = (cti_set_map)cti_sym(L, "chafa_canvas_config_set_symbol_map");
    cti_canvas_new canvas_new = (cti_canvas_new)cti_sym(L, "chafa_canvas_new");
    cti_draw draw = (cti_draw)cti_sym(L, "chafa_canvas_draw_all_pixels");
    cti_char_at char_at = (cti_char_at)cti_sym(L, "chafa_canvas_get_char_at");
    cti_colors_at colors_at = (cti_colors_at)cti_sym(L, "chafa_canvas_get_raw_colors_at");
    cti_unref map_unref = (cti_unref)cti_sym(L, "chafa_symbol_map_unref");
    cti_unref config_unref = (cti_unref)cti_sym(L, "chafa_canvas_config_unref");
    cti_unref canvas_unref = (cti_unref)cti_sym(L, "chafa_canvas_unref");
    if (!map_new || !add_tags || !config_new || !set_geometry || !set_mode || !set_map || !canvas_new || !draw || !char_at ||
        !colors_at || !map_unref || !config_unref || !canvas_unref) { free(rgba); return 0; }
    void *map = map_new();
    add_tags(map, (1 << 0) | (1 << 3) | (1 << 8) | (1 << 9) | (1 << 7));  // space, block, half blocks, quadrants
    void *config = config_new();
    set_geometry(config, width, rows);
    set_mode(config, 2);  // CHAFA_CANVAS_MODE_INDEXED_240: the 256-colour palette without the themable 16
    set_map(config, map);
    void *canvas = canvas_new(config);
    draw(canvas, 4, rgba, w, h, w * 4);  // CHAFA_PIXEL_RGBA8_UNASSOCIATED
    for (int y = 0; y < rows; y++) {
        for (int x = 0; x < width; x++) {
            int f = -1, g = -1;
            chars[y * cols + x] = char_at(canvas, x, y);
            colors_at(canvas, x, y, &f, &g);
            fg[y * cols + x] = f;
            bg[y * cols + x] = g;
        }
    }
    canvas_unref(canvas);
    config_unref(config);
    map_unref(map);
    free(rgba);
    *used_cols = width;
    return rows;
}
/// The size of a cell in pixels, from the terminal (TIOCGWINSZ); 0 when it does not say.
static inline void cti_cell_pixels(int *w, int *h) {
    struct winsize ws;
    *w = 0; *h = 0;
    if (ioctl(1, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0 && ws.ws_row > 0 && ws.ws_xpixel > 0 && ws.ws_ypixel > 0) {
        *w = ws.ws_xpixel / ws.ws_col;
        *h = ws.ws_ypixel / ws.ws_row;
    }
}

typedef gdImagePtr (*cti_gd_create)(int w, int h);
typedef void (*cti_gd_resampled)(gdImagePtr dst, gdImagePtr src, int dx, int dy, int sx, int sy, int dw, int dh, int sw, int sh);
typedef void (*cti_gd_flag)(gdImagePtr im, int on);
typedef void *(*cti_gd_png)(gdImagePtr im, int *size);
typedef void (*cti_gd_free)(void *p);

/// Decodes `data` and scales it to `pw` × `ph` pixels: PNG bytes when `png`, else RGBA (4 bytes a pixel, row by
/// row). Returns a malloc'd buffer (the caller frees it) and its size in `*len`; NULL on failure.
static inline uint8_t *cti_picture(const void *data, int size, int pw, int ph, int png, int *len) {
    *len = 0;
    if (!cti_available() || pw < 1 || ph < 1 || size <= 0 || (long)pw * ph > 16L * 1000 * 1000) return NULL;
    const char *G = "libgd.so.3";
    cti_gd_pixel pixel = (cti_gd_pixel)cti_sym(G, "gdImageGetTrueColorPixel");
    cti_gd_destroy destroy = (cti_gd_destroy)cti_sym(G, "gdImageDestroy");
    cti_gd_create create = (cti_gd_create)cti_sym(G, "gdImageCreateTrueColor");
    cti_gd_resampled resample = (cti_gd_resampled)cti_sym(G, "gdImageCopyResampled");
    cti_gd_flag blending = (cti_gd_flag)cti_sym(G, "gdImageAlphaBlending");
    cti_gd_flag save_alpha = (cti_gd_flag)cti_sym(G, "gdImageSaveAlpha");
    cti_gd_png to_png = (cti_gd_png)cti_sym(G, "gdImagePngPtr");
    cti_gd_free gd_free = (cti_gd_free)cti_sym(G, "gdFree");
    if (!pixel || !destroy || !create || !resample || !blending || !save_alpha || !to_png || !gd_free) return NULL;
    gdImagePtr im = cti_decode(data, size);
    if (!im) return NULL;
    int w = gdImageSX(im), h = gdImageSY(im);
    gdImagePtr out = create(pw, ph);
    if (!out) { destroy(im); return NULL; }
    blending(out, 0);
    save_alpha(out, 1);
    resample(out, im, 0, 0, 0, 0, pw, ph, w, h);
    destroy(im);
    uint8_t *buf = NULL;
    if (png) {
        int n = 0;
        void *p = to_png(out, &n);
        if (p && n > 0 && (buf = malloc((size_t)n)) != NULL) { memcpy(buf, p, (size_t)n); *len = n; }
        if (p) gd_free(p);
    } else if ((buf = malloc((size_t)pw * ph * 4)) != NULL) {
        for (int y = 0; y < ph; y++) {
            for (int x = 0; x < pw; x++) {
                int c = pixel(out, x, y);
                uint8_t *q = buf + ((size_t)y * pw + x) * 4;
                q[0] = (c >> 16) & 0xFF; q[1] = (c >> 8) & 0xFF; q[2] = c & 0xFF;
                q[3] = (uint8_t)(255 - ((c >> 24) & 0x7F) * 255 / 127);
            }
        }
        *len = pw * ph * 4;
    }
    destroy(out);
    return buf;
}
#endif
