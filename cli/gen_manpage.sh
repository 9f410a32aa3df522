#!/bin/sh
# gen_manpage.sh SOLBOOK VERSION - writes solbook(1) in roff to stdout, made
# from the program's own help: `solbook --help` for the command list and
# `solbook COMMAND --help` for each command, so the page says what the
# binary does.
set -eu
SOLBOOK=$1
VERSION=$2

# roff: backslashes escaped, a leading dot or quote made literal.
roff() { sed -e 's/\\/\\e/g' -e "s/^\\([.']\\)/\\\\\\&\\1/"; }

commands=$("$SOLBOOK" --help | awk '/^Commands:/ {on = 1; next} on && NF == 0 {exit} on {print $1}')
[ -n "$commands" ] || { echo "gen_manpage.sh: no commands in '$SOLBOOK --help'" >&2; exit 1; }

cat <<HEAD
.TH SOLBOOK 1 "" "solbook $VERSION" "User Commands"
.SH NAME
solbook \\- results database and static dashboard generator for GPU kernel benchmarks
.SH SYNOPSIS
.B solbook
[\\fB\\-\\-version\\fR] [\\fB\\-\\-help\\fR]
.I COMMAND
[\\fIARGS\\fR]
.SH DESCRIPTION
HEAD
"$SOLBOOK" --help | awk '/^Commands:/ {exit} {print}' | sed -n '3,$p' | roff
echo ".SH COMMANDS"
for c in $commands; do
    echo ".SS solbook $c"
    echo ".nf"
    "$SOLBOOK" "$c" --help | roff
    echo ".fi"
done
cat <<'TAIL'
.SH ENVIRONMENT
.TP
.B SOLBOOK_HOME
The directory whose data/ holds the schemas, tables, templates,
experiments and forge harness: a source checkout, or an installed
\fIPREFIX\fR/share/solbook. Without it, solbook reads the installed one next
to its own binary, else the source tree it was built from.
.TP
.B SOLBOOK_DB
The database used when a command is given no \fB\-\-db\fR; without it,
\fBsolbook.db\fR in the current directory.
.SH FILES
.TP
.I PREFIX/share/solbook/data/
schemas, SKU and op-name tables, templates, experiments, forge harness.
.TP
.I PREFIX/share/doc/solbook/
the documentation (INSTALL.md, IMPORT.md, SCHEMAS.md, ...).
.SH EXIT STATUS
0 success, 1 the work found problems (invalid files, regressions), 2 usage
or system errors.
TAIL
