/* command.h - the schedio CLI's subcommands: each lives in cmd_<name>.c and
 * is listed in the table in main.c.
 */
#ifndef SCHEDIO_CLI_COMMAND_H
#define SCHEDIO_CLI_COMMAND_H

struct command {
	const char *name;
	const char *summary;               /* one line for `schedio --help` */
	int (*run)(int argc, char **argv); /* argv[0] is the command name; returns the exit status */
};

/* Default server URL: $SCHEDIO_SERVER, else http://127.0.0.1:8080. */
const char *command_default_server(void);

/* schedio health: asks a server whether it is up. */
int cmd_health(int argc, char **argv);
/* schedio scx run: loads a sched_ext scheduler until a signal (cmd_scx.c). */
int cmd_scx(int argc, char **argv);
/* schedio compare: arm A's runqueue latency against arm B's, with a verdict (cmd_compare.c). */
int cmd_compare(int argc, char **argv);

/* schedio submit: sends resctl-bench result files to the SSD database. */
int cmd_submit(int argc, char **argv);
/* schedio models: lists the SSD models the database knows. */
int cmd_models(int argc, char **argv);
/* schedio config: prints a model's recommended io.cost lines. */
int cmd_config(int argc, char **argv);
/* schedio apply: writes the recommended io.cost configuration for this host's disks. */
int cmd_apply(int argc, char **argv);
/* schedio bench: measures a disk's io.cost.model parameters (cmd_bench.c, cli/bench/). */
int cmd_bench(int argc, char **argv);

#endif /* SCHEDIO_CLI_COMMAND_H */
