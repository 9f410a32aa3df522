# embed_migrations.cmake - writes a C source holding db/migrations/NNN_name.sql, so
# the program opens and upgrades databases without its data directory.
# Run as: cmake -DMIGRATIONS_DIR=... -DOUTPUT=... -P embed_migrations.cmake
file(GLOB files RELATIVE ${MIGRATIONS_DIR} ${MIGRATIONS_DIR}/*.sql)
list(SORT files)
if(NOT files)
  message(FATAL_ERROR "no migrations in ${MIGRATIONS_DIR}")
endif()
set(body "/* Generated from db/migrations/NNN_name.sql by db/embed_migrations.cmake; do not edit. */\n#include \"migrate.h\"\n\n")
set(table "")
set(expect 1)
foreach(f ${files})
  if(NOT f MATCHES "^([0-9][0-9][0-9])_[A-Za-z0-9_]+\\.sql$")
    message(FATAL_ERROR "migration ${f}: name must be NNN_name.sql")
  endif()
  math(EXPR version "${CMAKE_MATCH_1}")   # strips leading zeros
  if(NOT version EQUAL expect)
    message(FATAL_ERROR "migration ${f}: expected number ${expect} (migrations are numbered 1, 2, ... without gaps)")
  endif()
  math(EXPR expect "${expect} + 1")
  file(READ ${MIGRATIONS_DIR}/${f} hex HEX)
  string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," hex "${hex}")
  string(REGEX REPLACE "(0x[0-9a-f][0-9a-f],0x[0-9a-f][0-9a-f],0x[0-9a-f][0-9a-f],0x[0-9a-f][0-9a-f],0x[0-9a-f][0-9a-f],0x[0-9a-f][0-9a-f],0x[0-9a-f][0-9a-f],0x[0-9a-f][0-9a-f],0x[0-9a-f][0-9a-f],0x[0-9a-f][0-9a-f],0x[0-9a-f][0-9a-f],0x[0-9a-f][0-9a-f],0x[0-9a-f][0-9a-f],0x[0-9a-f][0-9a-f],0x[0-9a-f][0-9a-f],0x[0-9a-f][0-9a-f],)" "\\1\n" hex "${hex}")
  string(APPEND body "static const char migration_${version}[] = {\n${hex}0x00};\n\n")
  string(APPEND table "    {${version}, \"${f}\", migration_${version}},\n")
endforeach()
string(APPEND body "const sb_db_migration sb_db_migrations[] = {\n${table}};\n")
list(LENGTH files n)
string(APPEND body "const size_t sb_db_migration_count = ${n};\n")
# configure_file rewrites OUTPUT only when the text changed, so an
# unchanged tree does not rebuild.
file(WRITE ${OUTPUT}.new "${body}")
configure_file(${OUTPUT}.new ${OUTPUT} COPYONLY)
