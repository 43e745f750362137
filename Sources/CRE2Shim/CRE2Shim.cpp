// See include/CRE2Shim.h.
#include "CRE2Shim.h"

#include <re2/re2.h>

#include <cstring>
#include <map>
#include <new>
#include <string>
#include <vector>

struct sonde_re2 {
    re2::RE2 expression;
    sonde_re2(const re2::StringPiece &pattern, const re2::RE2::Options &options) : expression(pattern, options) {}
};

extern "C" sonde_re2 *sonde_re2_compile(const char *pattern, size_t length, int64_t max_memory, sonde_re2_error *error) {
    re2::RE2::Options options;
    options.set_encoding(re2::RE2::Options::EncodingUTF8);
    options.set_posix_syntax(false);   // Perl's classes, \b, \pN, (?flags): Go's syntax.Perl
    options.set_longest_match(false);  // leftmost-first, as Go's regexp.Compile (not CompilePOSIX)
    options.set_case_sensitive(true);
    options.set_dot_nl(false);
    options.set_never_nl(false);
    options.set_never_capture(false);
    options.set_literal(false);
    options.set_log_errors(false);
    options.set_max_mem(max_memory);
    sonde_re2 *compiled = new (std::nothrow) sonde_re2(re2::StringPiece(pattern, length), options);
    if (compiled == nullptr) {
        error->code = re2::RE2::ErrorPatternTooLarge;
        error->argument[0] = 0;
        return nullptr;
    }
    if (!compiled->expression.ok()) {
        error->code = compiled->expression.error_code();
        const std::string &argument = compiled->expression.error_arg();
        size_t count = argument.size() < sizeof error->argument - 1 ? argument.size() : sizeof error->argument - 1;
        std::memcpy(error->argument, argument.data(), count);
        error->argument[count] = 0;
        delete compiled;
        return nullptr;
    }
    error->code = 0;
    error->argument[0] = 0;
    return compiled;
}

extern "C" void sonde_re2_free(sonde_re2 *expression) { delete expression; }

extern "C" int sonde_re2_group_count(const sonde_re2 *expression) { return expression->expression.NumberOfCapturingGroups(); }

extern "C" const char *sonde_re2_group_name(const sonde_re2 *expression, int group) {
    // The map is built once, owned by the RE2 object and never changed after (thread-safe).
    const std::map<int, std::string> &names = expression->expression.CapturingGroupNames();
    auto found = names.find(group);
    return found == names.end() ? nullptr : found->second.c_str();
}

extern "C" int sonde_re2_program_size(const sonde_re2 *expression) { return expression->expression.ProgramSize(); }

extern "C" int sonde_re2_match(const sonde_re2 *expression, const void *text, size_t length, int groups, int64_t *offsets) {
    // An empty text still needs an address, so that an empty match has one (a group that took no part has none).
    static const char empty = 0;
    const char *base = length == 0 || text == nullptr ? &empty : static_cast<const char *>(text);
    re2::StringPiece whole(base, length);
    if (groups <= 0) {
        return expression->expression.Match(whole, 0, length, re2::RE2::UNANCHORED, nullptr, 0) ? 1 : 0;
    }
    std::vector<re2::StringPiece> found(static_cast<size_t>(groups));
    if (!expression->expression.Match(whole, 0, length, re2::RE2::UNANCHORED, found.data(), groups)) return 0;
    for (int index = 0; index < groups; index++) {
        const re2::StringPiece &piece = found[static_cast<size_t>(index)];
        if (piece.data() == nullptr) {
            offsets[2 * index] = -1;
            offsets[2 * index + 1] = -1;
        } else {
            offsets[2 * index] = static_cast<int64_t>(piece.data() - base);
            offsets[2 * index + 1] = static_cast<int64_t>(piece.data() - base + piece.size());
        }
    }
    return 1;
}
