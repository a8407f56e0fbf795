/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The fipc version a build was made from, as MODULE_VERSION of every
 * fipc module (/sys/module/<name>/version, modinfo -F version).
 *
 * The build scripts put a generated copy of this header first on the
 * include path: scripts/build-modules.sh and the packages (fipc-dkms,
 * fipc-modules-<kernel>) define FIPC_VERSION as "0.<commits>+g<hash>",
 * the version of the package the modules come in.  A build without them
 * says "0+unknown".
 */
#ifndef FIPC_VERSION_H
#define FIPC_VERSION_H

#ifndef FIPC_VERSION
#define FIPC_VERSION "0+unknown"
#endif

#endif /* FIPC_VERSION_H */
