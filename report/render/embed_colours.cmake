# embed_colours.cmake - writes a C source holding report/render/provider_colours.csv
# (provider,colour; "*" rows are the colours of providers not named), so
# every chart colours a provider the same way without a data directory.
# Run as: cmake -DCSV=... -DOUTPUT=... -P embed_colours.cmake
file(STRINGS ${CSV} lines)
list(POP_FRONT lines header)
if(NOT header STREQUAL "provider,colour")
  message(FATAL_ERROR "${CSV}: header must be provider,colour")
endif()
set(named "")
set(others "")
foreach(line ${lines})
  if(NOT line MATCHES "^([*]|[A-Za-z0-9_.-]+),(#[0-9A-Fa-f][0-9A-Fa-f][0-9A-Fa-f][0-9A-Fa-f][0-9A-Fa-f][0-9A-Fa-f])$")
    message(FATAL_ERROR "${CSV}: bad row '${line}' (provider or *, then #RRGGBB)")
  endif()
  string(TOLOWER "${CMAKE_MATCH_2}" colour)
  if(CMAKE_MATCH_1 STREQUAL "*")
    string(APPEND others "    \"${colour}\",\n")
  else()
    string(APPEND named "    {\"${CMAKE_MATCH_1}\", \"${colour}\"},\n")
  endif()
endforeach()
if(others STREQUAL "")
  message(FATAL_ERROR "${CSV}: no * row (colours of providers not named)")
endif()
set(body "/* Generated from report/render/provider_colours.csv by report/render/embed_colours.cmake; do not edit. */\n#include \"svg.h\"\n\nconst sb_provider_colour sb_provider_colours[] = {\n${named}    {0, 0},\n};\nconst char *const sb_other_provider_colours[] = {\n${others}    0,\n};\n")
# configure_file rewrites OUTPUT only when the text changed, so an
# unchanged tree does not rebuild.
file(WRITE ${OUTPUT}.new "${body}")
configure_file(${OUTPUT}.new ${OUTPUT} COPYONLY)
