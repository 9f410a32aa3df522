/* fuzz_template.c - the template engine (report/template.h): any template
 * text parses and renders with every escaping, or is refused with one
 * error naming a line; never a crash, leak or undefined behaviour. */
#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_assert.h"
#include "template.h"

static json_t *data;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    json_error_t je;
    data = json_loads("{\"a\": \"x<y>&'\\n```\", \"n\": 42, \"r\": 1.5, \"t\": true, \"z\": null,"
                      " \"empty\": [], \"o\": {\"b\": \"deep\"}, \"names\": [\"x\", \"y\"],"
                      " \"rows\": [{\"k\": \"a|b\", \"v\": 1}, {\"k\": \"$(id)\", \"v\": 2}]}",
                      0, &je);
    if (!data)
        abort();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data_in, size_t size)
{
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data_in, size);
    text[size] = '\0';
    sb_template *t = NULL;
    sb_error err;
    if (sb_template_parse(text, "fuzz.tmpl", &t, &err) == SB_OK) {
        static const sb_tpl_escape modes[] = {SB_TPL_ESCAPE_NONE, SB_TPL_ESCAPE_HTML,
                                              SB_TPL_ESCAPE_MARKDOWN, SB_TPL_ESCAPE_SHELL_ARG,
                                              SB_TPL_ESCAPE_SHELL_COMMENT};
        for (size_t i = 0; i < sizeof modes / sizeof *modes; i++) {
            sb_buf out = SB_BUF_INIT;
            if (sb_template_render(t, data, modes[i], &out, &err) != SB_OK)
                fuzz_assert_one_line_error(err);
            sb_buf_free(&out);
        }
        sb_template_free(t);
    } else {
        fuzz_assert(t == NULL);
        fuzz_assert_one_line_error(err);
    }
    free(text);
    return 0;
}
