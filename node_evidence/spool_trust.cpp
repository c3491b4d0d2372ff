// One rule for the directory and its files, so that the doctor's verdict on the spool and the
// source's refusals never disagree. The mode is looked at first: a file anyone may write is
// refused without asking slurmctld who its owner is.
#include "node_evidence/spool_trust.h"

#include <sys/stat.h>

#include <cstdio>

namespace node_evidence {

std::optional<std::string> untrusted_because(uid_t owner, mode_t mode, uid_t self,
                                             const OwnerCheck& also_trusted) {
    if ((mode & (S_IWGRP | S_IWOTH)) != 0) {
        char octal[8];
        std::snprintf(octal, sizeof octal, "%04o", static_cast<unsigned>(mode & 07777));
        return std::string("can be written by group or others (mode ") + octal + ")";
    }
    if (owner != 0 && owner != self && !(also_trusted && also_trusted(owner))) {
        return "belongs to uid " + std::to_string(owner) + ", not to root" +
               (also_trusted ? ", uid " + std::to_string(self) + " or SlurmUser"
                             : " or uid " + std::to_string(self));
    }
    return std::nullopt;
}

}  // namespace node_evidence
