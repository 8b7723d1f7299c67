// [queue] (the PostgreSQL job store of docs/scale-out.md): its keys and limits, and the masking of
// the password in a connection string wherever one is shown.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <string>

#include "pacer/config.hpp"
#include "pacer/error.hpp"

namespace fs = std::filesystem;
using Catch::Matchers::Contains;

namespace {

pacer::Config load_text(const std::string& text) {
  const fs::path p = fs::temp_directory_path() / ("pacer-test-queue-" + std::to_string(getpid()) + ".toml");
  std::ofstream(p) << text;
  struct Remove { fs::path p; ~Remove() { std::error_code ec; fs::remove(p, ec); } } remove{p};
  return pacer::load_config(p);
}

std::string load_error(const std::string& text) {
  try {
    load_text(text);
  } catch (const pacer::InputError& e) {
    return e.what();
  }
  FAIL("no InputError for:\n" << text);
  return {};
}

}  // namespace

TEST_CASE("queue config: without [queue] the daemon keeps its jobs in memory", "[config][queue]") {
  const pacer::Config c = load_text("");
  CHECK_FALSE(c.queue.enabled());
  CHECK(c.queue.lease_s == 30);
  CHECK(c.queue.max_attempts == 3);
  CHECK(c.queue.schema == "pacer");
  CHECK_FALSE(c.queue.prove_locally);
  CHECK(c.queue.verify_proofs);
}

TEST_CASE("queue config: every key of [queue] is read, in URI and key=value form", "[config][queue]") {
  const pacer::Config c = load_text(
      "[queue]\nurl = \"postgresql://prover:s3cret@db.example:5433/proofs?sslmode=require\"\nschema = \"prover_q\"\n"
      "lease_s = 12\nmax_attempts = 5\nretention_s = 3600\nprove_locally = true\nverify_proofs = false\n");
  CHECK(c.queue.enabled());
  CHECK(c.queue.url == "postgresql://prover:s3cret@db.example:5433/proofs?sslmode=require");
  CHECK(c.queue.schema == "prover_q");
  CHECK(c.queue.lease_s == 12);
  CHECK(c.queue.max_attempts == 5);
  CHECK(c.queue.retention_s == 3600);
  CHECK(c.queue.prove_locally);
  CHECK_FALSE(c.queue.verify_proofs);
  CHECK(load_text("[queue]\nurl = \"host=/tmp port=5432 dbname=pacer\"\n").queue.url == "host=/tmp port=5432 dbname=pacer");
}

TEST_CASE("queue config: a missing url, a bad schema name, out-of-range numbers and unknown keys are refused",
          "[config][queue]") {
  CHECK_THAT(load_error("[queue]\nlease_s = 10\n"), Contains("url"));
  CHECK_THAT(load_error("[queue]\nurl = \"\"\n"), Contains("url"));
  CHECK_THAT(load_error("[queue]\nurl = \"x\"\nschema = \"a; drop table x\"\n"), Contains("schema"));
  CHECK_THAT(load_error("[queue]\nurl = \"x\"\nschema = \"Upper\"\n"), Contains("schema"));
  CHECK_THAT(load_error("[queue]\nurl = \"x\"\nlease_s = 1\n"), Contains("lease_s"));
  CHECK_THAT(load_error("[queue]\nurl = \"x\"\nmax_attempts = 0\n"), Contains("max_attempts"));
  CHECK_THAT(load_error("[queue]\nurl = \"x\"\nretention = 5\n"), Contains("unknown key 'retention' in [queue]"));
  CHECK_THAT(load_error("[queue]\nurl = \"" + std::string(5000, 'h') + "\"\n"), Contains("4096"));
}

TEST_CASE("queue config: the password of a connection string is masked in every form", "[config][queue]") {
  using pacer::mask_conninfo;
  CHECK(mask_conninfo("postgresql://prover:s3cret@db:5432/proofs") == "postgresql://prover:***@db:5432/proofs");
  CHECK(mask_conninfo("postgres://prover:p%40ss@db/proofs?sslmode=require") ==
        "postgres://prover:***@db/proofs?sslmode=require");
  CHECK(mask_conninfo("postgresql://prover@db/proofs?password=s3cret&sslmode=disable") ==
        "postgresql://prover@db/proofs?password=***&sslmode=disable");
  CHECK(mask_conninfo("postgresql://db/proofs") == "postgresql://db/proofs");
  CHECK(mask_conninfo("host=db user=prover password=s3cret dbname=proofs") ==
        "host=db user=prover password=*** dbname=proofs");
  CHECK(mask_conninfo("host=db password = 'my secret' dbname=x").find("secret") == std::string::npos);
  CHECK(mask_conninfo("host=db password='a b\\' c' dbname=x") == "host=db password=*** dbname=x");
  CHECK(mask_conninfo("host=db PASSWORD=s3cret") == "host=db PASSWORD=***");
  CHECK(mask_conninfo("host=db dbname=x") == "host=db dbname=x");
  // An unterminated quote masks to the end rather than leaking the rest.
  CHECK(mask_conninfo("host=db password='s3cret dbname=x") == "host=db password=***");
}

TEST_CASE("queue config: the password is found and scrubbed from other messages", "[config][queue]") {
  CHECK(pacer::conninfo_password("postgresql://u:s3cret@h/d") == "s3cret");
  CHECK(pacer::conninfo_password("host=h password='a b'") == "a b");
  CHECK(pacer::conninfo_password("host=h") == "");
  CHECK(pacer::scrub_secret("FATAL: password s3cret for s3cret", "s3cret") == "FATAL: password *** for ***");
  CHECK(pacer::scrub_secret("nothing", "") == "nothing");
}
