/* token_cmd.h - `schedio-server token add|list|revoke`, offline on the database. */
#ifndef SCHEDIO_SERVER_TOKEN_CMD_H
#define SCHEDIO_SERVER_TOKEN_CMD_H

/* Runs the token subcommand (argv[0] is "token"); returns the exit status. */
int token_cmd_main(int argc, char **argv);

#endif /* SCHEDIO_SERVER_TOKEN_CMD_H */
