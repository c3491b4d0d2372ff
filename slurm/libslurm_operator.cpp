// LibslurmClient::drain_node, ::resume_node and ::is_operator: what only an operator may do, and
// whether we are one. slurmctld decides by uid (root, SlurmUser) or by AdminLevel in slurmdbd; we
// check the uid part only, which needs one cached RPC and no slurmdbd.
#include <unistd.h>

#include <cerrno>
#include <string>

#include "slurm/detail/libslurm.h"
#include "slurm/libslurm_client.h"

namespace slurm {

Result<void> LibslurmClient::drain_node(const std::string& node, const std::string& reason) {
    const std::string operation = "draining node " + node;
    std::string names = node;
    std::string text = reason;
    update_node_msg_t message;
    slurm_init_update_node_msg(&message);
    message.node_names = names.data();
    message.node_state = NODE_STATE_DRAIN;
    message.reason = text.data();
    // Who set the reason (sinfo -R shows it); scontrol sends the caller's uid the same way.
    message.reason_uid = ::getuid();
    errno = 0;
    const int rc = slurm_update_node(&message);
    if (rc != SLURM_SUCCESS) {
        return tl::unexpected(detail::make_error(detail::last_error(rc), operation));
    }
    return {};
}

Result<void> LibslurmClient::resume_node(const std::string& node) {
    const std::string operation = "resuming node " + node;
    std::string names = node;
    update_node_msg_t message;
    slurm_init_update_node_msg(&message);
    message.node_names = names.data();
    message.node_state = NODE_RESUME;
    errno = 0;
    const int rc = slurm_update_node(&message);
    if (rc != SLURM_SUCCESS) {
        return tl::unexpected(detail::make_error(detail::last_error(rc), operation));
    }
    return {};
}

Result<bool> LibslurmClient::ask_is_operator() {
    return ask_is_operator_uid(::getuid());
}

Result<bool> LibslurmClient::ask_is_operator_uid(std::uint32_t uid) {
    if (uid == 0) {
        return true;
    }
    if (!m_slurm_user_id) {
        auto config = detail::load_controller_config("reading SlurmUser from slurmctld");
        if (!config) {
            return tl::unexpected(std::move(config.error()));
        }
        m_slurm_user_id = (*config)->slurm_user_id;
    }
    return uid == *m_slurm_user_id;
}

Result<Release> LibslurmClient::load_controller_release() {
    auto config = detail::load_controller_config("asking slurmctld for its Slurm release");
    if (!config) {
        return tl::unexpected(std::move(config.error()));
    }
    const char* text = (*config)->version ? (*config)->version : "";
    if (auto release = parse_release(text)) {
        return *release;
    }
    return tl::unexpected(
        Error{ErrorKind::other, std::string("slurmctld reported Slurm release '") + text +
                                    "', which is not major.minor[.micro]: compare `scontrol "
                                    "--version` with `supervisor --version` by hand"});
}

}  // namespace slurm
