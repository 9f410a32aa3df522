/* scan.c - see scan.h. */
#include "scan.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "dir_names.h"
#include "json_file.h"

#define MAX_SOURCE_BYTES (4u * 1024u * 1024u)

enum tok_kind { T_IDENT, T_STRING, T_CHAR, T_NUMBER, T_PUNCT };

typedef struct token {
    enum tok_kind kind;
    size_t start, len;  /* in the spliced buffer; for strings, the content */
    int line;
    int directive;      /* 1 when part of a preprocessor directive */
} token;

typedef struct lexer {
    char *buf;          /* source with line splices removed */
    int *lines;         /* source line of each byte of buf */
    size_t len;
    token *toks;
    size_t ntok, captok;
    const char *src;    /* original, for quoting lines */
    size_t src_len;
    size_t *line_starts;
    size_t nlines;
} lexer;

static int push_tok(lexer *lx, enum tok_kind k, size_t start, size_t len, int line, int dir)
{
    if (lx->ntok == lx->captok) {
        size_t cap = lx->captok ? lx->captok * 2 : 1024;
        token *t = realloc(lx->toks, cap * sizeof *t);
        if (!t)
            return -1;
        lx->toks = t;
        lx->captok = cap;
    }
    lx->toks[lx->ntok++] = (token){k, start, len, line, dir};
    return 0;
}

static int splice(lexer *lx, const char *src, size_t len)
{
    lx->buf = malloc(len + 1);
    lx->lines = malloc((len + 1) * sizeof *lx->lines);
    lx->line_starts = malloc((len + 2) * sizeof *lx->line_starts);
    if (!lx->buf || !lx->lines || !lx->line_starts)
        return -1;
    int line = 1;
    size_t o = 0;
    lx->line_starts[0] = 0;
    lx->nlines = 1;
    for (size_t i = 0; i < len; i++) {
        if (src[i] == '\\') {
            size_t j = i + 1;
            if (j < len && src[j] == '\r')
                j++;
            if (j < len && src[j] == '\n') {
                line++;
                lx->line_starts[lx->nlines++] = j + 1;
                i = j;
                continue;
            }
        }
        lx->buf[o] = src[i];
        lx->lines[o++] = line;
        if (src[i] == '\n') {
            line++;
            lx->line_starts[lx->nlines++] = i + 1;
        }
    }
    lx->buf[o] = '\0';
    lx->lines[o] = line;
    lx->len = o;
    lx->src = src;
    lx->src_len = len;
    return 0;
}

static int is_ident_start(int c) { return isalpha(c) || c == '_' || c == '$'; }
static int is_ident_char(int c) { return isalnum(c) || c == '_' || c == '$'; }

/* Tokenises lx->buf. Unterminated literals and comments end at the end of
 * the buffer (the compiler will refuse such a file anyway). */
static int lex(lexer *lx)
{
    const char *b = lx->buf;
    size_t n = lx->len, i = 0;
    int at_line_start = 1, in_directive = 0, dir_line = 0;
    while (i < n) {
        char c = b[i];
        if (c == '\n') {
            at_line_start = 1;
            in_directive = 0;
            i++;
            continue;
        }
        if (isspace((unsigned char)c)) {
            i++;
            continue;
        }
        if (c == '/' && i + 1 < n && b[i + 1] == '/') {
            while (i < n && b[i] != '\n')
                i++;
            continue;
        }
        if (c == '/' && i + 1 < n && b[i + 1] == '*') {
            i += 2;
            while (i + 1 < n && !(b[i] == '*' && b[i + 1] == '/'))
                i++;
            i = i + 2 <= n ? i + 2 : n;
            continue;
        }
        int line = lx->lines[i];
        if (c == '#' && at_line_start) {
            in_directive = 1;
            dir_line = line;
            (void)dir_line;
        }
        at_line_start = 0;
        if (is_ident_start((unsigned char)c)) {
            size_t s = i;
            while (i < n && is_ident_char((unsigned char)b[i]))
                i++;
            /* Raw string: R"d( ... )d" with an optional encoding prefix. */
            size_t idlen = i - s;
            if (i < n && b[i] == '"' && idlen <= 3 && b[i - 1] == 'R' &&
                (idlen == 1 || strncmp(b + s, "u8R", 3) == 0 || strncmp(b + s, "LR", 2) == 0 ||
                 strncmp(b + s, "uR", 2) == 0 || strncmp(b + s, "UR", 2) == 0)) {
                size_t d = i + 1;
                while (d < n && b[d] != '(' && d - (i + 1) < 16)
                    d++;
                char delim[20];
                size_t dl = d - (i + 1);
                if (d >= n || b[d] != '(')
                    dl = 0;
                snprintf(delim, sizeof delim, ")%.*s\"", (int)dl, b + i + 1);
                size_t cs = d + 1, ce = cs;
                while (ce < n && strncmp(b + ce, delim, dl + 2) != 0)
                    ce++;
                if (push_tok(lx, T_STRING, cs, (ce < n ? ce : n) - cs, line, in_directive))
                    return -1;
                i = ce < n ? ce + dl + 2 : n;
                continue;
            }
            if (i < n && (b[i] == '"' || b[i] == '\'') && idlen <= 2 &&
                (strncmp(b + s, "u8", idlen) == 0 || b[s] == 'L' || b[s] == 'u' || b[s] == 'U'))
                goto literal; /* encoding prefix: lex the literal itself */
            if (push_tok(lx, T_IDENT, s, idlen, line, in_directive))
                return -1;
            continue;
        }
        if (isdigit((unsigned char)c) || (c == '.' && i + 1 < n && isdigit((unsigned char)b[i + 1]))) {
            size_t s = i;
            while (i < n && (isalnum((unsigned char)b[i]) || b[i] == '.' || b[i] == '\'' ||
                             ((b[i] == '+' || b[i] == '-') && (b[i - 1] == 'e' || b[i - 1] == 'E' ||
                                                                b[i - 1] == 'p' || b[i - 1] == 'P'))))
                i++;
            if (push_tok(lx, T_NUMBER, s, i - s, line, in_directive))
                return -1;
            continue;
        }
    literal:
        if (b[i] == '"' || b[i] == '\'') {
            char q = b[i];
            size_t s = ++i;
            while (i < n && b[i] != q && b[i] != '\n') {
                if (b[i] == '\\' && i + 1 < n)
                    i++;
                i++;
            }
            if (push_tok(lx, q == '"' ? T_STRING : T_CHAR, s, i - s, line, in_directive))
                return -1;
            if (i < n && b[i] == q)
                i++;
            continue;
        }
        /* Punctuation; the two-character ones that matter here. */
        static const char *two[] = {"::", "->", "##", "<<", ">>", "&&", "||", "==", "!=", "<=", ">="};
        size_t plen = 1;
        for (size_t k = 0; k < sizeof two / sizeof two[0]; k++)
            if (i + 1 < n && b[i] == two[k][0] && b[i + 1] == two[k][1]) {
                plen = 2;
                break;
            }
        if (push_tok(lx, T_PUNCT, i, plen, line, in_directive))
            return -1;
        i += plen;
    }
    return 0;
}

static int tok_is(const lexer *lx, size_t k, const char *s)
{
    if (k >= lx->ntok)
        return 0;
    const token *t = &lx->toks[k];
    return (t->kind == T_IDENT || t->kind == T_PUNCT) && strlen(s) == t->len &&
           memcmp(lx->buf + t->start, s, t->len) == 0;
}

static int add_finding(sb_scan_report *rep, const char *file, const lexer *lx, int line,
                       const char *rule, const char *what)
{
    if (rep->count == rep->cap) {
        size_t cap = rep->cap ? rep->cap * 2 : 16;
        sb_scan_finding *f = realloc(rep->items, cap * sizeof *f);
        if (!f)
            return -1;
        rep->items = f;
        rep->cap = cap;
    }
    sb_scan_finding *f = &rep->items[rep->count++];
    memset(f, 0, sizeof *f);
    snprintf(f->file, sizeof f->file, "%s", file);
    f->line = line;
    snprintf(f->rule, sizeof f->rule, "%s", rule);
    snprintf(f->what, sizeof f->what, "%s", what);
    if (lx && line >= 1 && (size_t)line <= lx->nlines) {
        size_t s = lx->line_starts[line - 1], e = s;
        while (e < lx->src_len && lx->src[e] != '\n' && lx->src[e] != '\r')
            e++;
        while (s < e && isspace((unsigned char)lx->src[s]))
            s++;
        while (e > s && isspace((unsigned char)lx->src[e - 1]))
            e--;
        size_t len = e - s;
        if (len >= sizeof f->text)
            len = sizeof f->text - 1;
        memcpy(f->text, lx->src + s, len);
        f->text[len] = '\0';
        for (char *p = f->text; *p; p++)
            if ((unsigned char)*p < 0x20)
                *p = ' ';
    }
    return 0;
}

static int in_list(const char *s, size_t len, const char *const *list)
{
    for (size_t i = 0; list[i]; i++)
        if (strlen(list[i]) == len && memcmp(list[i], s, len) == 0)
            return 1;
    return 0;
}

/* Forbidden wherever they appear as a name (a call, a function pointer). */
static const char *const process_names[] = {
    "system", "popen", "fork", "vfork", "clone", "clone3", "execl", "execle", "execlp", "execv",
    "execve", "execvp", "execvpe", "execveat", "fexecve", "posix_spawn", "posix_spawnp",
    "wordexp", "syscall", "ptrace", "kill", "killpg", "tgkill", "setuid", "setgid", "seteuid",
    "setreuid", "chroot", "mount", "umount", "umount2", "pivot_root", "unshare", "setns",
    "daemon", "setsid", "setpgid", "setpgrp", "__libc_argv", "program_invocation_name", "program_invocation_short_name", NULL};
static const char *const network_names[] = {
    "socket", "socketpair", "getaddrinfo", "gethostbyname", "gethostbyname2", "gethostbyaddr",
    "getnameinfo", "inet_pton", "inet_addr", "inet_aton", NULL};
static const char *const dynamic_names[] = {"dlopen", "dlmopen", "dlsym", "dlvsym", NULL};
/* Forbidden as calls (they are also common member or variable names). */
static const char *const network_calls[] = {"connect", "bind", "listen", "accept", "accept4",
                                            "sendto", "recvfrom", "sendmsg", "recvmsg", NULL};
static const char *const fs_calls[] = {
    "remove", "unlink", "unlinkat", "rename", "renameat", "renameat2", "rmdir", "symlink",
    "symlinkat", "link", "linkat", "chmod", "fchmod", "fchmodat", "chown", "fchown", "lchown",
    "fchownat", "truncate", "mkfifo", "mkfifoat", "mknod", "mknodat", "opendir", "fdopendir",
    "readdir", "scandir", "glob", "nftw", "ftw", NULL};
static const char *const open_calls[] = {"fopen", "fopen64", "freopen", "freopen64", "open",
                                         "open64", "openat", "openat64", "creat", "creat64", NULL};
static const char *const stream_types[] = {"ofstream", "ifstream", "fstream", "basic_ofstream",
                                           "basic_ifstream", "basic_fstream", "FILE_stream", NULL};
static const char *const bad_headers[] = {
    "sys/socket.h", "sys/un.h", "netdb.h", "spawn.h", "dlfcn.h", "sys/ptrace.h", "wordexp.h",
    "sys/mount.h", "ifaddrs.h", "filesystem", "experimental/filesystem", NULL};
static const char *const bad_header_dirs[] = {"netinet/", "arpa/", "curl/", "linux/", "net/", NULL};
static const char *const source_exts[] = {".cu", ".cuh", ".c", ".h", ".cc", ".cpp", ".cxx",
                                          ".hpp", ".hh", ".inc", ".inl", NULL};
static const char *const shell_strings[] = {"/bin/sh", "/bin/bash", "/bin/dash", "/bin/zsh",
                                            "/usr/bin/env", "sh -c", "bash -c", "/bin/", NULL};

static int has_source_ext(const char *name)
{
    const char *dot = strrchr(name, '.');
    if (!dot)
        return 0;
    for (size_t i = 0; source_exts[i]; i++)
        if (strcmp(dot, source_exts[i]) == 0)
            return 1;
    return 0;
}

/* Why a path string may reach outside the candidate folder, or NULL. */
static const char *path_problem(const char *s, size_t len)
{
    if (len == 0)
        return "empty path";
    if (s[0] == '/')
        return "absolute path";
    if (s[0] == '~')
        return "path in a home directory";
    for (size_t i = 0; i + 1 < len; i++)
        if (s[i] == '.' && s[i + 1] == '.')
            return "path with ..";
    for (size_t i = 0; i < len; i++)
        if (s[i] == '\\' || s[i] == '%' || s[i] == '$')
            return "path with escapes, format or variables";
    return NULL;
}

/* Whether the outer-scope name at k starts a function definition: NAME (
 * ... ) followed by '{' (qualifiers such as const or noexcept between). */
static int is_definition(const lexer *lx, size_t k)
{
    if (!tok_is(lx, k + 1, "("))
        return 0;
    int depth = 0;
    size_t i = k + 1;
    for (; i < lx->ntok; i++) {
        if (tok_is(lx, i, "("))
            depth++;
        else if (tok_is(lx, i, ")") && --depth == 0)
            break;
        else if (tok_is(lx, i, ";") || tok_is(lx, i, "{"))
            return 0;
    }
    for (i++; i < lx->ntok && i < k + 64; i++) {
        if (tok_is(lx, i, "{"))
            return 1;
        if (tok_is(lx, i, ";") || tok_is(lx, i, "=") || tok_is(lx, i, ",") || tok_is(lx, i, ")"))
            return 0;
    }
    return 0;
}

/* Names a candidate must not define: the CUDA runtime and driver APIs,
 * NVML/NVRTC, and forge's own harness functions. A definition with the
 * same name as a runtime function would replace it in the linked test or
 * bench program (cudaEventElapsedTime reporting made-up times). */
static int reserved_name(const char *s, size_t len)
{
    return (len > 4 && strncmp(s, "cuda", 4) == 0) ||
           (len > 2 && s[0] == 'c' && s[1] == 'u' && isupper((unsigned char)s[2])) ||
           (len > 4 && strncmp(s, "nvml", 4) == 0) || (len > 5 && strncmp(s, "nvrtc", 5) == 0) ||
           (len > 6 && strncmp(s, "forge_", 6) == 0);
}

/* The definitions a file may legitimately hold: the op ABI in reference.*,
 * the inline helpers in a copy of forge_abi.h. */
static int allowed_definition(const char *file, const char *s, size_t len)
{
    static const char *const abi[] = {"forge_problem_create", "forge_baseline_launch",
                                      "forge_problem_check", "forge_problem_destroy", NULL};
    static const char *const abi_h[] = {"forge_dim", "forge_poison_outputs", NULL};
    const char *base = strrchr(file, '/');
    base = base ? base + 1 : file;
    if (strncmp(base, "reference.", 10) == 0 && in_list(s, len, abi))
        return 1;
    return strcmp(base, "forge_abi.h") == 0 && in_list(s, len, abi_h);
}

typedef struct scan_ctx {
    const char *file;
    lexer *lx;
    sb_scan_report *rep;
} scan_ctx;

static int finding(scan_ctx *c, int line, const char *rule, const char *fmt, const char *a,
                   size_t alen)
{
    char what[128];
    snprintf(what, sizeof what, fmt, (int)(alen > 80 ? 80 : alen), a);
    return add_finding(c->rep, c->file, c->lx, line, rule, what);
}

/* Checks the first argument of an open-like call whose '(' is token k. */
static int check_open_arg(scan_ctx *c, size_t k, const char *fn, size_t fnlen)
{
    lexer *lx = c->lx;
    const token *t = k + 1 < lx->ntok ? &lx->toks[k + 1] : NULL;
    char what[160];
    if (t && t->kind == T_STRING && k + 2 < lx->ntok &&
        (tok_is(lx, k + 2, ",") || tok_is(lx, k + 2, ")"))) {
        const char *why = path_problem(lx->buf + t->start, t->len);
        if (!why)
            return 0;
        snprintf(what, sizeof what, "%.*s(\"%.*s\"): %s", (int)fnlen, fn,
                 (int)(t->len > 60 ? 60 : t->len), lx->buf + t->start, why);
        return add_finding(c->rep, c->file, lx, t->line, "file-path", what);
    }
    snprintf(what, sizeof what,
             "%.*s(...) with a path that is not a string literal: cannot prove it stays in the folder",
             (int)fnlen, fn);
    return add_finding(c->rep, c->file, lx, lx->toks[k].line, "file-path", what);
}

static int scan_include(scan_ctx *c, const token *hash)
{
    /* The raw rest of the line after "include". */
    lexer *lx = c->lx;
    size_t i = hash->start + 1;
    while (i < lx->len && lx->buf[i] != '\n' && isspace((unsigned char)lx->buf[i]))
        i++;
    i += 7; /* include */
    while (i < lx->len && lx->buf[i] != '\n' && isspace((unsigned char)lx->buf[i]))
        i++;
    if (i >= lx->len)
        return 0;
    char open = lx->buf[i], close = open == '<' ? '>' : '"';
    if (open != '<' && open != '"')
        return finding(c, hash->line, "file-path", "#include of a macro-computed name%.*s", "", 0);
    size_t s = i + 1, e = s;
    while (e < lx->len && lx->buf[e] != close && lx->buf[e] != '\n')
        e++;
    const char *name = lx->buf + s;
    size_t len = e - s;
    char hdr[256];
    snprintf(hdr, sizeof hdr, "%.*s", (int)(len < 255 ? len : 255), name);
    if (open == '<') {
        if (in_list(name, len, bad_headers))
            return finding(c, hash->line, "header", "#include <%.*s>", name, len);
        for (size_t k = 0; bad_header_dirs[k]; k++)
            if (strncmp(hdr, bad_header_dirs[k], strlen(bad_header_dirs[k])) == 0)
                return finding(c, hash->line, "header", "#include <%.*s>", name, len);
        if (path_problem(name, len))
            return finding(c, hash->line, "file-path", "#include <%.*s> outside the system paths", name, len);
        return 0;
    }
    const char *why = path_problem(name, len);
    if (why)
        return finding(c, hash->line, "file-path", "#include \"%.*s\" reaches outside the candidate folder",
                       name, len);
    if (!has_source_ext(hdr) && strcmp(hdr, "forge_abi.h") != 0)
        return finding(c, hash->line, "file-path", "#include \"%.*s\" is not a source file", name, len);
    return 0;
}

enum body_kind { B_TRANSPARENT, B_DEVICE, B_HOST };

static int scan_tokens(scan_ctx *c)
{
    lexer *lx = c->lx;
    enum body_kind stack[256];
    int depth = 0, overflow = 0;
    int decl_device = 0, decl_host = 0, decl_transparent = 0;
    for (size_t k = 0; k < lx->ntok; k++) {
        const token *t = &lx->toks[k];
        const char *s = lx->buf + t->start;
        int outer = depth == 0 || (depth <= 256 && stack[depth - 1] == B_TRANSPARENT);

        if (t->kind == T_PUNCT && t->len == 1 && s[0] == '#' && t->directive &&
            (k == 0 || lx->toks[k - 1].line != t->line || !lx->toks[k - 1].directive)) {
            if (tok_is(lx, k + 1, "include") || tok_is(lx, k + 1, "include_next") ||
                tok_is(lx, k + 1, "import") || tok_is(lx, k + 1, "embed")) {
                if (scan_include(c, t))
                    return -1;
                /* skip the header-name tokens of this line */
                while (k + 1 < lx->ntok && lx->toks[k + 1].line == t->line)
                    k++;
            }
            continue;
        }
        if (t->kind == T_STRING) {
            for (size_t i = 0; shell_strings[i]; i++) {
                size_t sl = strlen(shell_strings[i]);
                for (size_t j = 0; j + sl <= t->len; j++)
                    if (memcmp(s + j, shell_strings[i], sl) == 0) {
                        if (finding(c, t->line, "shell", "string names a shell or system program: \"%.*s\"",
                                    s, t->len))
                            return -1;
                        goto next_token;
                    }
            }
            continue;
        }
        if (t->kind == T_PUNCT) {
            if (t->len == 2 && s[0] == '#' && s[1] == '#') {
                if (finding(c, t->line, "macro", "## token pasting%.*s", "", 0))
                    return -1;
                continue;
            }
            if (t->directive)
                continue;
            if (s[0] == ';' && outer) {
                decl_device = decl_host = decl_transparent = 0;
            } else if (s[0] == '{') {
                enum body_kind kind;
                if (outer)
                    kind = decl_transparent ? B_TRANSPARENT
                                            : (decl_device && !decl_host ? B_DEVICE : B_HOST);
                else
                    kind = depth <= 256 ? stack[depth - 1] : B_HOST;
                if (depth < 256)
                    stack[depth] = kind;
                else
                    overflow = 1;
                depth++;
                decl_device = decl_host = decl_transparent = 0;
            } else if (s[0] == '}') {
                if (depth > 0)
                    depth--;
                decl_device = decl_host = decl_transparent = 0;
            }
            continue;
        }
        if (t->kind != T_IDENT)
            continue;

        int member = k > 0 && (tok_is(lx, k - 1, ".") || tok_is(lx, k - 1, "->"));
        int std_qualified = k > 1 && tok_is(lx, k - 1, "::") && tok_is(lx, k - 2, "std");
        int call = tok_is(lx, k + 1, "(");

        if (!t->directive && outer) {
            if (tok_is(lx, k, "__global__") || tok_is(lx, k, "__device__"))
                decl_device = 1;
            else if (tok_is(lx, k, "__host__"))
                decl_host = 1;
            else if (tok_is(lx, k, "namespace") || tok_is(lx, k, "struct") || tok_is(lx, k, "class") ||
                     tok_is(lx, k, "union") || tok_is(lx, k, "enum") ||
                     (tok_is(lx, k, "extern") && k + 1 < lx->ntok && lx->toks[k + 1].kind == T_STRING))
                decl_transparent = 1;
        }

        if (tok_is(lx, k, "asm") || tok_is(lx, k, "__asm__") || tok_is(lx, k, "__asm")) {
            if (t->directive) {
                if (finding(c, t->line, "inline-asm", "%.*s inside a macro: where it expands cannot be checked",
                            s, t->len))
                    return -1;
            } else if (overflow || depth == 0 || stack[depth - 1] != B_DEVICE) {
                if (finding(c, t->line, "inline-asm",
                            "%.*s outside a __global__/__device__ function body (host assembly)", s, t->len))
                    return -1;
            }
            continue;
        }
        if (!t->directive && outer && !member && reserved_name(s, t->len) && is_definition(lx, k) &&
            !allowed_definition(c->file, s, t->len)) {
            if (finding(c, t->line, "interpose",
                        "defines %.*s(), a name of the CUDA runtime or the forge harness", s, t->len))
                return -1;
            continue;
        }
        if (member && !(call && in_list(s, t->len, open_calls)))
            continue;
        if (in_list(s, t->len, process_names)) {
            if (finding(c, t->line, "process", "%.*s", s, t->len))
                return -1;
        } else if (in_list(s, t->len, network_names) || (t->len > 5 && strncmp(s, "curl_", 5) == 0) ||
                   (t->len >= 4 && strncmp(s, "CURL", 4) == 0 && (t->len == 4 || s[4] == '_'))) {
            if (finding(c, t->line, "network", "%.*s", s, t->len))
                return -1;
        } else if (in_list(s, t->len, dynamic_names)) {
            if (finding(c, t->line, "dynamic", "%.*s", s, t->len))
                return -1;
        } else if (call && in_list(s, t->len, network_calls) && !std_qualified) {
            if (finding(c, t->line, "network", "%.*s(...)", s, t->len))
                return -1;
        } else if (call && in_list(s, t->len, fs_calls) && !std_qualified) {
            if (finding(c, t->line, "filesystem", "%.*s(...)", s, t->len))
                return -1;
        } else if (tok_is(lx, k, "filesystem") && std_qualified) {
            if (finding(c, t->line, "filesystem", "std::%.*s", s, t->len))
                return -1;
        } else if (call && in_list(s, t->len, open_calls)) {
            if (check_open_arg(c, k + 1, s, t->len))
                return -1;
        } else if (in_list(s, t->len, stream_types)) {
            /* ofstream f("path") / ofstream("path") / ofstream f; f.open(...) */
            size_t p = k + 1;
            if (p < lx->ntok && lx->toks[p].kind == T_IDENT)
                p++;
            if (tok_is(lx, p, "(") || tok_is(lx, p, "{")) {
                if (check_open_arg(c, p, s, t->len))
                    return -1;
            }
        }
    next_token:;
    }
    return 0;
}

int sb_scan_buffer(const char *name, const char *src, size_t len, sb_scan_report *rep,
                   sb_error *err)
{
    lexer lx;
    memset(&lx, 0, sizeof lx);
    int rc = SB_OK;
    if (splice(&lx, src, len) || lex(&lx)) {
        rc = sb_error_set(err, name, NULL, "out of memory while scanning");
        goto done;
    }
    scan_ctx c = {name, &lx, rep};
    if (scan_tokens(&c))
        rc = sb_error_set(err, name, NULL, "out of memory while scanning");
    rep->files_scanned++;
done:
    free(lx.buf);
    free(lx.lines);
    free(lx.toks);
    free(lx.line_starts);
    return rc;
}

int sb_scan_defines(const char *src, size_t len, const char *name)
{
    lexer lx;
    memset(&lx, 0, sizeof lx);
    int found = -1;
    if (splice(&lx, src, len) == 0 && lex(&lx) == 0) {
        found = 0;
        int depth = 0;
        for (size_t k = 0; k < lx.ntok && !found; k++) {
            const token *t = &lx.toks[k];
            if (t->directive)
                continue;
            if (tok_is(&lx, k, "{")) {
                /* extern "C" { and namespace x { keep file scope */
                int transparent = (k >= 1 && lx.toks[k - 1].kind == T_STRING) ||
                                  (k >= 2 && tok_is(&lx, k - 2, "namespace")) || (k >= 1 && tok_is(&lx, k - 1, "namespace"));
                if (!transparent)
                    depth++;
            } else if (tok_is(&lx, k, "}")) {
                if (depth > 0)
                    depth--;
            } else if (depth == 0 && t->kind == T_IDENT && t->len == strlen(name) &&
                       memcmp(lx.buf + t->start, name, t->len) == 0 && is_definition(&lx, k)) {
                found = 1;
            }
        }
    }
    free(lx.buf);
    free(lx.lines);
    free(lx.toks);
    free(lx.line_starts);
    return found;
}

static int scan_dir_rel(const char *root, const char *rel, sb_scan_report *rep, int depth,
                        sb_error *err)
{
    char path[4096];
    snprintf(path, sizeof path, "%s%s%s", root, rel[0] ? "/" : "", rel);
    DIR *d = opendir(path);
    if (!d)
        return sb_error_set(err, path, NULL, "cannot open folder: %s", strerror(errno));
    char **names;
    size_t n;
    int rc = sb_dir_read_names(d, path, &names, &n, err);
    for (size_t i = 0; i < n && rc == SB_OK; i++) {
        char relp[1024], full[4096];
        snprintf(relp, sizeof relp, "%s%s%s", rel, rel[0] ? "/" : "", names[i]);
        snprintf(full, sizeof full, "%s/%s", root, relp);
        struct stat st;
        if (lstat(full, &st) != 0) {
            rc = sb_error_set(err, full, NULL, "cannot stat: %s", strerror(errno));
        } else if (S_ISLNK(st.st_mode)) {
            if (add_finding(rep, relp, NULL, 0, "file", "symbolic link: may point outside the folder"))
                rc = sb_error_set(err, full, NULL, "out of memory");
        } else if (S_ISDIR(st.st_mode)) {
            if (depth >= 4) {
                if (add_finding(rep, relp, NULL, 0, "file", "folder nested too deep"))
                    rc = sb_error_set(err, full, NULL, "out of memory");
            } else {
                rc = scan_dir_rel(root, relp, rep, depth + 1, err);
            }
        } else if (!S_ISREG(st.st_mode)) {
            if (add_finding(rep, relp, NULL, 0, "file", "special file (fifo, socket or device)"))
                rc = sb_error_set(err, full, NULL, "out of memory");
        } else if (st.st_nlink > 1) {
            /* not read: its bytes may be any file's of the machine */
            if (add_finding(rep, relp, NULL, 0, "file", "hard link: a second name of a file that may lie outside the folder"))
                rc = sb_error_set(err, full, NULL, "out of memory");
        } else if (has_source_ext(names[i])) {
            if ((size_t)st.st_size > MAX_SOURCE_BYTES) {
                if (add_finding(rep, relp, NULL, 0, "file", "source file over 4 MiB"))
                    rc = sb_error_set(err, full, NULL, "out of memory");
                continue;
            }
            char *buf = NULL;
            size_t len = 0;
            if (sb_file_read_all(full, &buf, &len, err) != SB_OK) {
                rc = SB_ERR;
            } else {
                rc = sb_scan_buffer(relp, buf, len, rep, err);
                free(buf);
            }
        }
    }
    sb_dir_names_free(names, n);
    closedir(d);
    return rc;
}

int sb_scan_dir(const char *dir, sb_scan_report *rep, sb_error *err)
{
    return scan_dir_rel(dir, "", rep, 0, err);
}

void sb_scan_report_free(sb_scan_report *rep)
{
    if (!rep)
        return;
    free(rep->items);
    memset(rep, 0, sizeof *rep);
}

void sb_scan_finding_format(const sb_scan_finding *f, char *buf, size_t size)
{
    if (f->line > 0)
        snprintf(buf, size, "%s:%d: %s: %s: %s", f->file, f->line, f->rule, f->what, f->text);
    else
        snprintf(buf, size, "%s: %s: %s", f->file, f->rule, f->what);
}
