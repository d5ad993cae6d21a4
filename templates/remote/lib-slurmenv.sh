# shellcheck shell=sh
# Before every script sqdeck runs on a login node (rsh_wrap in
# src/ssh/rsh.c): the variables of the user's login environment that change
# what squeue, sacct, sinfo and scontrol print or list (README, "SLURM
# releases") are cleared for the script, as the command lines of
# src/slurm/slurm-cmd.c clear them with env -u.  SQUEUE_STATES=PD, say,
# hides a running job even from squeue -j.
unset SQUEUE_ACCOUNT SQUEUE_ALL SQUEUE_ARRAY SQUEUE_FEDERATION SQUEUE_FORMAT \
    SQUEUE_FORMAT2 SQUEUE_LICENSES SQUEUE_LOCAL SQUEUE_NAMES SQUEUE_PARTITION \
    SQUEUE_PRIORITY SQUEUE_QOS SQUEUE_SIBLING SQUEUE_SORT SQUEUE_STATES \
    SQUEUE_USERS SACCT_FEDERATION SACCT_FORMAT SACCT_LOCAL SINFO_ALL \
    SINFO_FEDERATION SINFO_FORMAT SINFO_LOCAL SINFO_PARTITION SINFO_SORT \
    SCONTROL_ALL SCONTROL_FEDERATION SCONTROL_LOCAL SLURM_TIME_FORMAT \
    SLURM_BITSTR_LEN
