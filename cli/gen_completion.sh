#!/bin/sh
# gen_completion.sh SOLBOOK - writes a bash completion script for solbook to
# stdout, made from the program's own help: the commands of `solbook
# --help`, and for each command the subcommands its usage names
# ("solbook report geomean ...") and the long options its help lists.
set -eu
SOLBOOK=$1

commands=$("$SOLBOOK" --help | awk '/^Commands:/ {on = 1; next} on && NF == 0 {exit} on {print $1}')
[ -n "$commands" ] || { echo "gen_completion.sh: no commands in '$SOLBOOK --help'" >&2; exit 1; }

words() { tr '\n' ' ' | sed 's/ *$//'; }

cat <<'HEAD'
# bash completion for solbook, generated from its help by cli/gen_completion.sh.
_solbook()
{
    local cur=${COMP_WORDS[COMP_CWORD]} subs="" opts=""
    if [ "$COMP_CWORD" -eq 1 ]; then
HEAD
printf '        COMPREPLY=($(compgen -W "%s --help --version" -- "$cur"))\n' "$(echo "$commands" | words)"
cat <<'MID'
        return
    fi
    case ${COMP_WORDS[1]} in
MID
for c in $commands; do
    help=$("$SOLBOOK" "$c" --help)
    # a subcommand is a whole word after the command ("solbook report
    # weekly ..."), not the start of an example's argument (a SHA, KEY=VALUE)
    subs=$(echo "$help" | grep -oE "solbook $c [a-z][a-z-]*( |$)" | awk '{print $3}' | sort -u | words)
    # Every long option the help names, except in quoted text (another
    # tool's command line, such as 'ncu --csv').
    opts=$(echo "$help" | sed "s/'[^']*'//g" | grep -o -- '--[a-z][a-z0-9-]*' | sort -u | words)
    printf '    %s) subs="%s"; opts="%s" ;;\n' "$c" "$subs" "$opts"
done
cat <<'TAIL'
    esac
    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "$opts" -- "$cur"))
    elif [ "$COMP_CWORD" -eq 2 ] && [ -n "$subs" ]; then
        COMPREPLY=($(compgen -W "$subs" -- "$cur"))
    fi
}
complete -o default -o bashdefault -F _solbook solbook
TAIL
