# packaging.cmake - Debian packages by CPack: `cpack -G DEB` in a build folder
# makes schedio-agent_<version>_<arch>.deb (the agent, the `schedio` CLI,
# its unit and /etc/schedio/agent.conf) and schedio-server_... (the server,
# the dashboard, its unit and /etc/schedio/server.env). Paths are Debian's:
# programs under /usr, units in /lib/systemd/system, configs in /etc/schedio
# as conffiles so upgrades keep local edits. Depends are the runtime
# libraries of Debian 12 the binaries link (tests/integration/test_packages.py
# checks them against the binaries' actual NEEDED entries). libbpf1 is the
# agent's; the CLI links its own libbpf statically (cmake/libbpf.cmake).

install(FILES ${CMAKE_SOURCE_DIR}/deploy/systemd/schedio-agent.service DESTINATION /lib/systemd/system COMPONENT agent)
install(FILES ${CMAKE_SOURCE_DIR}/deploy/agent.conf.example DESTINATION /etc/schedio RENAME agent.conf
        PERMISSIONS OWNER_READ OWNER_WRITE GROUP_READ COMPONENT agent)
install(FILES ${CMAKE_SOURCE_DIR}/deploy/systemd/schedio-server.service DESTINATION /lib/systemd/system COMPONENT server)
install(FILES ${CMAKE_SOURCE_DIR}/deploy/server.env.example DESTINATION /etc/schedio RENAME server.env
        PERMISSIONS OWNER_READ OWNER_WRITE GROUP_READ COMPONENT server)

set(CPACK_PACKAGE_NAME schedio)
set(CPACK_PACKAGE_VENDOR "schedio")
set(CPACK_PACKAGE_CONTACT "schedio maintainers <schedio@localhost>")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "fleet telemetry for Linux resource control")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_GENERATOR DEB)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL agent server)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION admin)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_HOMEPAGE "https://github.com/schedio/schedio")

set(CPACK_DEBIAN_AGENT_PACKAGE_NAME schedio-agent)
set(CPACK_DEBIAN_AGENT_PACKAGE_DEPENDS "libc6 (>= 2.34), libbpf1 (>= 1:1.1), libelf1, zlib1g, libcjson1, libcurl3-gnutls, libinih1, liburing2 (>= 2.3)")
set(CPACK_COMPONENT_AGENT_DESCRIPTION "schedio agent: runqueue latency and IO cost vs weight, per cgroup
 schedio-agent measures runqueue latency (BPF) and blk-iocost cost vs weight
 per cgroup, inventories the host, and pushes reports to a schedio server
 through an on-disk spool. Also ships the schedio command line.")
set(CPACK_DEBIAN_SERVER_PACKAGE_NAME schedio-server)
set(CPACK_DEBIAN_SERVER_PACKAGE_DEPENDS "libc6 (>= 2.34), libmicrohttpd12, libsqlite3-0, libcjson1, libnettle8, zlib1g, libdeflate0, libzstd1, libpq5")
set(CPACK_COMPONENT_SERVER_DESCRIPTION "schedio server: fleet telemetry API, metrics and dashboard
 schedio-server stores schedio agents' reports and SSD benchmark results in
 SQLite and serves the HTTP API, Prometheus /metrics and the dashboard.")

foreach(comp agent server)
  string(TOUPPER ${comp} COMP)
  set(PKG schedio-${comp})
  set(UNIT schedio-${comp}.service)
  if(comp STREQUAL agent)
    set(STATE_DIR /var/lib/schedio-agent)
    set(CONFFILE /etc/schedio/agent.conf)
  else()
    set(STATE_DIR /var/lib/private/schedio)
    set(CONFFILE /etc/schedio/server.env)
  endif()
  set(dir ${CMAKE_BINARY_DIR}/debian/${comp})
  foreach(script postinst prerm postrm)
    configure_file(${CMAKE_SOURCE_DIR}/deploy/debian/${script}.in ${dir}/${script} @ONLY
                   FILE_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
  endforeach()
  file(WRITE ${dir}/conffiles "${CONFFILE}\n")
  set(CPACK_DEBIAN_${COMP}_PACKAGE_CONTROL_EXTRA ${dir}/postinst ${dir}/prerm ${dir}/postrm ${dir}/conffiles)
  set(CPACK_DEBIAN_${COMP}_PACKAGE_CONTROL_STRICT_PERMISSION TRUE)
endforeach()

include(CPack)
