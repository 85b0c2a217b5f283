#include "cost/cost_cache.h"

#include <sqlite3.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>

#include "support/error.h"
#include "support/strings.h"

namespace saturate::cost {
namespace {

constexpr const char* kSchema =
    "CREATE TABLE IF NOT EXISTS op_costs ("
    "  backend TEXT NOT NULL,"
    "  fingerprint TEXT NOT NULL,"
    "  config TEXT NOT NULL,"
    "  milliseconds REAL NOT NULL,"
    "  repeats INTEGER NOT NULL,"
    "  measured_at INTEGER NOT NULL,"
    "  PRIMARY KEY (backend, fingerprint, config));"
    // The least time of the load probe's work seen on a machine (load_probe.h): what quiet is.
    "CREATE TABLE IF NOT EXISTS quiet_calibration ("
    "  fingerprint TEXT NOT NULL,"
    "  probe TEXT NOT NULL,"
    "  milliseconds REAL NOT NULL,"
    "  PRIMARY KEY (fingerprint, probe));";

// A prepared statement, finalized on every path.
class Statement {
 public:
  Statement(sqlite3* db, const char* sql) {
    status_ = sqlite3_prepare_v2(db, sql, -1, &stmt_, nullptr);
  }
  ~Statement() { sqlite3_finalize(stmt_); }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  bool ok() const { return status_ == SQLITE_OK; }
  sqlite3_stmt* get() const { return stmt_; }
  void bind(int index, const std::string& text) {
    sqlite3_bind_text(stmt_, index, text.c_str(), static_cast<int>(text.size()), SQLITE_TRANSIENT);
  }

 private:
  sqlite3_stmt* stmt_ = nullptr;
  int status_ = SQLITE_OK;
};

}  // namespace

std::string cache_key(const OpConfig& config) {
  return describe(config) + " -> " +
         join(config.outputs, ", ", [](const ir::TensorType& type) { return ir::to_string(type); });
}

CostCache::CostCache(std::string path) : path_(std::move(path)) {
  std::error_code error;
  const std::filesystem::path file(path_);
  if (file.has_parent_path()) std::filesystem::create_directories(file.parent_path(), error);
  if (error) {
    throw Error("cannot create the directory of cost cache " + path_ + ": " + error.message());
  }
  try {
    if (sqlite3_open_v2(path_.c_str(), &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr) !=
        SQLITE_OK) {
      fail("cannot open");
    }
    sqlite3_busy_timeout(db_, 10'000);
    // The first statement reads the header: a corrupt or foreign file fails here.
    char* message = nullptr;
    if (sqlite3_exec(db_, kSchema, nullptr, nullptr, &message) != SQLITE_OK) {
      sqlite3_free(message);
      fail("cannot use");
    }
    // A file with an op_costs table of another shape is not ours either.
    Statement probe(db_,
                    "SELECT backend, fingerprint, config, milliseconds, repeats, measured_at "
                    "FROM op_costs LIMIT 0");
    if (!probe.ok()) fail("cannot use");
  } catch (...) {
    // The destructor does not run for a half-built object: close here.
    sqlite3_close(db_);
    throw;
  }
}

CostCache::~CostCache() {
  sqlite3_close(db_);
}

void CostCache::fail(const std::string& what) const {
  std::string reason = db_ != nullptr ? sqlite3_errmsg(db_) : "out of memory";
  // Only a file SQLite cannot read as our table is foreign or corrupt; other failures (a full
  // disk, no permission) are named by SQLite's message alone.
  const std::string hint = what == "cannot use" ? ": it is not a Saturate cost cache; delete it or "
                                                  "pass another file with --cost-cache"
                                                : "";
  throw Error(what + " cost cache " + path_ + " (" + reason + ")" + hint);
}

std::optional<CachedCost> CostCache::find(const std::string& backend,
                                          const std::string& fingerprint,
                                          const std::string& key) const {
  Statement query(db_,
                  "SELECT milliseconds, repeats, measured_at FROM op_costs "
                  "WHERE backend = ?1 AND fingerprint = ?2 AND config = ?3");
  if (!query.ok()) fail("cannot read");
  query.bind(1, backend);
  query.bind(2, fingerprint);
  query.bind(3, key);
  const int status = sqlite3_step(query.get());
  if (status == SQLITE_DONE) return std::nullopt;
  if (status != SQLITE_ROW) fail("cannot read");
  return CachedCost{sqlite3_column_double(query.get(), 0), sqlite3_column_int(query.get(), 1),
                    sqlite3_column_int64(query.get(), 2)};
}

void CostCache::store(const std::string& backend, const std::string& fingerprint,
                      const std::vector<std::pair<std::string, CachedCost>>& entries) {
  if (entries.empty()) return;
  if (sqlite3_exec(db_, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr) != SQLITE_OK) {
    fail("cannot write");
  }
  {
    Statement insert(db_,
                     "INSERT OR REPLACE INTO op_costs "
                     "(backend, fingerprint, config, milliseconds, repeats, measured_at) "
                     "VALUES (?1, ?2, ?3, ?4, ?5, ?6)");
    bool ok = insert.ok();
    for (const auto& [key, cost] : entries) {
      if (!ok) break;
      sqlite3_reset(insert.get());
      insert.bind(1, backend);
      insert.bind(2, fingerprint);
      insert.bind(3, key);
      sqlite3_bind_double(insert.get(), 4, cost.milliseconds);
      sqlite3_bind_int(insert.get(), 5, cost.repeats);
      sqlite3_bind_int64(insert.get(), 6, cost.measured_at);
      ok = sqlite3_step(insert.get()) == SQLITE_DONE;
    }
    if (!ok) {
      std::string reason = sqlite3_errmsg(db_);
      sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
      throw Error("cannot write cost cache " + path_ + ": " + reason);
    }
  }
  if (sqlite3_exec(db_, "COMMIT", nullptr, nullptr, nullptr) != SQLITE_OK) fail("cannot write");
}

std::optional<double> CostCache::quiet_calibration(const std::string& fingerprint,
                                                   const std::string& probe) const {
  Statement query(db_,
                  "SELECT milliseconds FROM quiet_calibration "
                  "WHERE fingerprint = ?1 AND probe = ?2");
  if (!query.ok()) fail("cannot read");
  query.bind(1, fingerprint);
  query.bind(2, probe);
  const int status = sqlite3_step(query.get());
  if (status == SQLITE_DONE) return std::nullopt;
  if (status != SQLITE_ROW) fail("cannot read");
  return sqlite3_column_double(query.get(), 0);
}

void CostCache::record_quiet_calibration(const std::string& fingerprint, const std::string& probe,
                                         double milliseconds) {
  // One statement: the least value wins even when two processes record at once.
  Statement upsert(db_,
                   "INSERT INTO quiet_calibration (fingerprint, probe, milliseconds) "
                   "VALUES (?1, ?2, ?3) ON CONFLICT (fingerprint, probe) DO UPDATE SET "
                   "milliseconds = MIN(milliseconds, excluded.milliseconds)");
  if (!upsert.ok()) fail("cannot write");
  upsert.bind(1, fingerprint);
  upsert.bind(2, probe);
  sqlite3_bind_double(upsert.get(), 3, milliseconds);
  if (sqlite3_step(upsert.get()) != SQLITE_DONE) fail("cannot write");
}

size_t CostCache::size() const {
  Statement count(db_, "SELECT COUNT(*) FROM op_costs");
  if (!count.ok() || sqlite3_step(count.get()) != SQLITE_ROW) fail("cannot read");
  return static_cast<size_t>(sqlite3_column_int64(count.get(), 0));
}

std::string CostCache::default_path() {
  if (const char* path = std::getenv("SATURATE_COST_CACHE"); path != nullptr && *path != '\0') {
    return path;
  }
  std::filesystem::path base;
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg != nullptr && *xdg != '\0') {
    base = xdg;
  } else if (const char* home = std::getenv("HOME"); home != nullptr && *home != '\0') {
    base = std::filesystem::path(home) / ".cache";
  } else {
    base = std::filesystem::temp_directory_path();
  }
  return (base / "saturate" / "costs.sqlite").string();
}

}  // namespace saturate::cost
