# Install rules, in one of two layouts (support/shipped_files.h says how each is found at run time).
#  - A prefix (`cmake --install build --prefix P`): P/bin/saturate, P/share/saturate/rules,
#    P/share/saturate/pypm (the compiled fusions), P/share/saturate/python (the `saturate` package
#    with its extension), P/lib (the static libraries) and P/include/saturate (their headers).
#  - The Python wheel (`pip install .`; scikit-build-core sets SKBUILD): the command, the rules and
#    the extension go inside the `saturate` package, whose own `saturate` command
#    (python/saturate/_command.py) runs the program with the paths of the installed package.
include(GNUInstallDirs)
if(SKBUILD)
  set(SATURATE_INSTALL_BINDIR saturate/_data/bin)
  set(SATURATE_INSTALL_DATADIR saturate/_data)
  set(SATURATE_INSTALL_PACKAGEDIR saturate)
else()
  set(SATURATE_INSTALL_BINDIR ${CMAKE_INSTALL_BINDIR})
  set(SATURATE_INSTALL_DATADIR ${CMAKE_INSTALL_DATADIR}/saturate)
  set(SATURATE_INSTALL_PACKAGEDIR ${CMAKE_INSTALL_DATADIR}/saturate/python/saturate)
endif()

install(TARGETS saturate RUNTIME DESTINATION ${SATURATE_INSTALL_BINDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/rules/ DESTINATION ${SATURATE_INSTALL_DATADIR}/rules
        PATTERN __pycache__ EXCLUDE)
install(FILES ${SATURATE_PYPM_COMPILED} DESTINATION ${SATURATE_INSTALL_DATADIR}/pypm)
if(SATURATE_PYTHON)
  install(TARGETS _saturate LIBRARY DESTINATION ${SATURATE_INSTALL_PACKAGEDIR})
endif()

if(NOT SKBUILD)
  # The wheel takes the package's Python files from python/saturate itself (pyproject.toml).
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/python/saturate/ DESTINATION ${SATURATE_INSTALL_PACKAGEDIR}
          FILES_MATCHING PATTERN "*.py" PATTERN __pycache__ EXCLUDE)
  set(saturate_libraries
      saturate_support saturate_egraph saturate_ir saturate_runtime saturate_runtime_onednn
      saturate_cost saturate_cost_onednn saturate_onnx saturate_onnxruntime_timer saturate_extract
      saturate_eqsat saturate_pm saturate_pm_egraph saturate_search saturate_models
      saturate_driver saturate_cli_commands)
  if(TARGET saturate_cost_cuda)
    list(APPEND saturate_libraries saturate_cost_cuda)
  endif()
  install(TARGETS ${saturate_libraries} ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
  # Headers keep their part's folder: code includes them as "ir/graph.h".
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/src/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/saturate
          FILES_MATCHING PATTERN "*.h")
endif()
