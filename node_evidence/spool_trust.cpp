// One rule for the directory and its files, so that the doctor's verdict on the spool and the
// source's refusals never disagree.
#include "node_evidence/spool_trust.h"

#include <sys/stat.h>

#include <cstdio>

namespace node_evidence {

std::optional<std::string> untrusted_because(uid_t owner, mode_t mode, uid_t self) {
    if (owner != 0 && owner != self) {
        return "belongs to uid " + std::to_string(owner) + ", not to root or uid " +
               std::to_string(self);
    }
    if ((mode & (S_IWGRP | S_IWOTH)) != 0) {
        char octal[8];
        std::snprintf(octal, sizeof octal, "%04o", static_cast<unsigned>(mode & 07777));
        return std::string("can be written by group or others (mode ") + octal + ")";
    }
    return std::nullopt;
}

}  // namespace node_evidence
