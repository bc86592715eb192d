package recorder

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	_ "github.com/go-sql-driver/mysql" // tessera's MySQL driver speaks through it
	"github.com/transparency-dev/tessera/storage/mysql"
	"golang.org/x/mod/sumdb/note"

	"github.com/memscope/memscope/evidence/tlog/appender"
)

// mysqlCheckpointInterval is tessera's MySQL driver's minimum: a recorder
// acknowledges on the sequenced, integrated entry, never on a checkpoint.
const mysqlCheckpointInterval = time.Second

// openMySQL opens a log kept by tessera's MySQL driver (tessera v1.0.4
// storage/mysql; its schema.sql must have been applied to the database).
// dsn is mysql://USER:PASSWORD@tcp(HOST:PORT)/DB, the go-sql-driver DSN
// behind the scheme.
func openMySQL(ctx context.Context, dsn string, signer note.Signer) (*appender.Writer, error) {
	db, err := sql.Open("mysql", strings.TrimPrefix(dsn, "mysql://"))
	if err != nil {
		return nil, fmt.Errorf("record: --log-storage: %w", err)
	}
	drv, err := mysql.New(ctx, db)
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("record: --log-storage: tessera MySQL driver (is tessera's storage/mysql/schema.sql applied?): %w", err)
	}
	return appender.OpenDriver(ctx, drv, "mysql log", signer, appender.Options{CheckpointInterval: mysqlCheckpointInterval, BatchMaxAge: batchMaxAge})
}
