# embed_verdicts.cmake - writes a C source holding data/templates/verdicts.csv:
# the words every report, packet and page says a paired verdict with
# (docs/CLAIMS.md, rule 8), one row per verdict of model/paired.h in the
# order of sb_paired_verdict, so a word changed there changes everywhere.
# Run as: cmake -DCSV=... -DOUTPUT=... -P embed_verdicts.cmake
file(STRINGS ${CSV} lines)
list(POP_FRONT lines header)
if(NOT header STREQUAL "verdict,one,many")
  message(FATAL_ERROR "${CSV}: header must be verdict,one,many")
endif()
set(want same faster slower inconclusive)
set(one "")
set(many "")
foreach(line ${lines})
  list(POP_FRONT want verdict)
  if(NOT line MATCHES "^([a-z]+),([a-z][a-z ]*),([a-z][a-z ]*)$" OR NOT CMAKE_MATCH_1 STREQUAL verdict)
    message(FATAL_ERROR "${CSV}: bad row '${line}' (the row of '${verdict}': verdict,one,many in lower case)")
  endif()
  string(APPEND one "    \"${CMAKE_MATCH_2}\",\n")
  string(APPEND many "    \"${CMAKE_MATCH_3}\",\n")
endforeach()
if(want)
  message(FATAL_ERROR "${CSV}: no row for ${want}")
endif()
set(body "/* Generated from data/templates/verdicts.csv by report/embed_verdicts.cmake; do not edit. */\n#include \"sessions.h\"\n\nconst char *const sb_verdict_one[4] = {\n${one}};\nconst char *const sb_verdict_many[4] = {\n${many}};\n")
# configure_file rewrites OUTPUT only when the text changed, so an
# unchanged tree does not rebuild.
file(WRITE ${OUTPUT}.new "${body}")
configure_file(${OUTPUT}.new ${OUTPUT} COPYONLY)
