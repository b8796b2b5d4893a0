// Runs the pinned CDK CLI's own entry point (`exec`, what `bin/cdk` calls with the command line) once per job,
// one job after another in one Node process, so the 16 MB CLI bundle is loaded once rather than once per command.
// Usage: node cdk_cli_jobs.js <the CLI's lib/index.js> <jobs.json>; a job is {"args": [...], "cwd": "..."}.
// Prints one JSON list: for each job, {"code": <exit code>, "output": <what it wrote to stdout and stderr>}.
"use strict";
const fs = require("fs");
const [cliLib, jobsFile] = process.argv.slice(2);
const { exec } = require(cliLib);
const jobs = JSON.parse(fs.readFileSync(jobsFile, "utf8"));
const write = { stdout: process.stdout.write, stderr: process.stderr.write };

(async () => {
  const results = [];
  for (const job of jobs) {
    let output = "";
    const capture = (chunk, encoding, done) => {
      output += typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8");
      const callback = typeof encoding === "function" ? encoding : done;
      if (callback) callback();
      return true;
    };
    process.stdout.write = capture;
    process.stderr.write = capture;
    process.chdir(job.cwd);
    process.exitCode = undefined;
    let code;
    try {
      const returned = await exec(job.args);
      code = typeof returned === "number" ? returned : (process.exitCode ?? 0);
    } catch (error) {
      output += String((error && error.stack) || error);
      code = -1;
    } finally {
      process.stdout.write = write.stdout;
      process.stderr.write = write.stderr;
    }
    results.push({ code, output });
  }
  process.exitCode = 0;
  process.stdout.write(JSON.stringify(results));
})();
