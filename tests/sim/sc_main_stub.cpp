// libsystemc references sc_main; the tests' main is GoogleTest's, which never calls it.
extern "C" int sc_main(int, char**) { return 0; }
