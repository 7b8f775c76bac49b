#ifndef TERN_CHUNSPELL_SHIM_H
#define TERN_CHUNSPELL_SHIM_H
// Spell checking for the terminal adapter: Hunspell's C API, loaded with dlopen when the first dictionary is,
// so a tern without libhunspell runs (without spell checking) and one with spell = "off" never maps it.
// No Hunspell header is needed: the few functions are declared here. The caller serialises every call.
#include <dlfcn.h>
#include <stddef.h>

typedef void *(*cth_create_f)(const char *aff, const char *dic);
typedef void (*cth_destroy_f)(void *h);
typedef int (*cth_spell_f)(void *h, const char *word);
typedef int (*cth_suggest_f)(void *h, char ***list, const char *word);
typedef void (*cth_free_list_f)(void *h, char ***list, int n);
typedef char *(*cth_encoding_f)(void *h);

/// libhunspell's handle, NULL when it is not installed; tries once.
static inline void *cth_library(void) {
    static int tried = 0;
    static void *lib = NULL;
    if (tried) return lib;
    tried = 1;
    static const char *names[] = { "libhunspell-1.7.so.0", "libhunspell-1.7.so", "libhunspell-1.6.so.0", "libhunspell.so",
                                   "libhunspell-1.7.0.dylib", "libhunspell-1.7.dylib", "/opt/homebrew/lib/libhunspell-1.7.0.dylib",
                                   "/usr/local/lib/libhunspell-1.7.0.dylib" };
    for (size_t i = 0; i < sizeof names / sizeof names[0] && lib == NULL; i++) lib = dlopen(names[i], RTLD_LAZY | RTLD_LOCAL);
    if (lib != NULL && (dlsym(lib, "Hunspell_create") == NULL || dlsym(lib, "Hunspell_spell") == NULL)) lib = NULL;
    return lib;
}

static inline void *cth_sym(const char *name) {
    void *lib = cth_library();
    return lib ? dlsym(lib, name) : NULL;
}

/// A dictionary from its .aff and .dic files; NULL when the library or the files are missing.
static inline void *cth_create(const char *aff, const char *dic) {
    cth_create_f f = (cth_create_f)cth_sym("Hunspell_create");
    return f ? f(aff, dic) : NULL;
}

static inline void cth_destroy(void *h) {
    cth_destroy_f f = (cth_destroy_f)cth_sym("Hunspell_destroy");
    if (f && h) f(h);
}

/// 1 when the dictionary knows `word` (in the dictionary's encoding), else 0.
static inline int cth_spell(void *h, const char *word) {
    cth_spell_f f = (cth_spell_f)cth_sym("Hunspell_spell");
    return (f && h) ? f(h, word) : 1;
}

/// The dictionary's suggestions for `word`: their count, the list in `*list` (free it with cth_free_list).
static inline int cth_suggest(void *h, const char *word, char ***list) {
    cth_suggest_f f = (cth_suggest_f)cth_sym("Hunspell_suggest");
    *list = NULL;
    return (f && h) ? f(h, list, word) : 0;
}

static inline void cth_free_list(void *h, char **list, int n) {
    cth_free_list_f f = (cth_free_list_f)cth_sym("Hunspell_free_list");
    if (f && h && list) f(h, &list, n);
}

/// The dictionary's encoding ("UTF-8", "ISO8859-1", …).
static inline const char *cth_encoding(void *h) {
    cth_encoding_f f = (cth_encoding_f)cth_sym("Hunspell_get_dic_encoding");
    return (f && h) ? f(h) : "UTF-8";
}
#endif
