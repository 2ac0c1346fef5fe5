# daemon/build.mk — mountd.

# ---- protocol layer: varlink server and JSON dispatcher ------------------
# Library objects shared by mountd and the host unit tests.
DAEMON_LIB_OBJS += $(B)/daemon/varlink.o $(B)/daemon/json-dispatch.o

# ---- mountd binary (mount operations) -----------------------------------
