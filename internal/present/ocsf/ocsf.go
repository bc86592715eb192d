// Package ocsf writes memscope's findings as OCSF Detection Finding events
// (class 2004 of the Open Cybersecurity Schema Framework, schema 1.8.0), the
// form SIEMs and security data lakes ingest. Every string goes through the
// sanitiser on output (jsonout), as in every memscope JSON.
package ocsf

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"time"

	"github.com/memscope/memscope/internal/present/finding"
)

// SchemaVersion is the OCSF schema the events follow (metadata.version).
const SchemaVersion = "1.8.0"

// The Detection Finding class: category Findings (2), class 4 of it; the
// activity is Create (1) for every finding memscope reports.
const (
	categoryUID  = 2
	classUID     = categoryUID*1000 + 4
	activityID   = 1
	typeUID      = classUID*100 + activityID
	statusIDNew  = 1
	confidenceID = 3 // High: each finding is a checked fact, not a score
)

// DetectionFinding is one OCSF Detection Finding event.
type DetectionFinding struct {
	ActivityID     int            `json:"activity_id"`
	ActivityName   string         `json:"activity_name"`
	CategoryUID    int            `json:"category_uid"`
	CategoryName   string         `json:"category_name"`
	ClassUID       int            `json:"class_uid"`
	ClassName      string         `json:"class_name"`
	TypeUID        int64          `json:"type_uid"`
	TypeName       string         `json:"type_name"`
	SeverityID     int            `json:"severity_id"`
	Severity       string         `json:"severity"`
	StatusID       int            `json:"status_id"`
	Status         string         `json:"status"`
	ConfidenceID   int            `json:"confidence_id"`
	Confidence     string         `json:"confidence"`
	Time           int64          `json:"time"`
	Message        string         `json:"message"`
	IsAlert        bool           `json:"is_alert"`
	Metadata       Metadata       `json:"metadata"`
	FindingInfo    FindingInfo    `json:"finding_info"`
	Unmapped       map[string]any `json:"unmapped,omitempty"`
	TimezoneOffset int            `json:"timezone_offset"`
}

// Metadata is OCSF's metadata object.
type Metadata struct {
	Product   Product `json:"product"`
	Version   string  `json:"version"`
	LogName   string  `json:"log_name,omitempty"`
	TenantUID string  `json:"tenant_uid,omitempty"`
}

// Product is OCSF's product object.
type Product struct {
	Name       string `json:"name"`
	VendorName string `json:"vendor_name"`
	Version    string `json:"version"`
}

// FindingInfo is OCSF's finding_info object.
type FindingInfo struct {
	UID   string   `json:"uid"`
	Title string   `json:"title"`
	Desc  string   `json:"desc"`
	Types []string `json:"types"`
}

// Context says where findings come from: the evidence, the command and
// when memscope reported them.
type Context struct {
	// Source names the evidence (a snapshot path, a log URL), for
	// metadata.log_name and the finding's uid.
	Source string
	// Tenant is the fleet tenant, if any (metadata.tenant_uid).
	Tenant string
	// Version is memscope's version (metadata.product.version).
	Version string
	// Time is when the finding was reported.
	Time time.Time
	// Extra are memscope's own fields, kept under unmapped.
	Extra map[string]any
}

// From maps one finding to a Detection Finding event. The uid is stable:
// the same finding about the same evidence has the same uid.
func From(f finding.Finding, c Context) DetectionFinding {
	sevID, sev := severity(f.Severity)
	uid := sha256.Sum256([]byte(fmt.Sprintf("%s\x00%s\x00%s\x00%s\x00%s", c.Tenant, c.Source, f.Code, f.Subject, f.Message)))
	unmapped := map[string]any{"code": string(f.Code), "family": string(f.Family), "subject": f.Subject, "memscope_severity": string(f.Severity)}
	if len(f.Entries) > 0 {
		unmapped["entries"] = f.Entries
	}
	for k, v := range c.Extra {
		unmapped[k] = v
	}
	title := string(f.Code)
	if spec, ok := finding.Lookup(f.Code); ok {
		title = string(f.Code) + ": " + spec.Meaning
	}
	return DetectionFinding{
		ActivityID: activityID, ActivityName: "Create",
		CategoryUID: categoryUID, CategoryName: "Findings",
		ClassUID: classUID, ClassName: "Detection Finding",
		TypeUID: typeUID, TypeName: "Detection Finding: Create",
		SeverityID: sevID, Severity: sev,
		StatusID: statusIDNew, Status: "New",
		ConfidenceID: confidenceID, Confidence: "High",
		Time:     c.Time.UnixMilli(),
		Message:  f.Subject + ": " + f.Message,
		IsAlert:  f.Severity == finding.SevError,
		Metadata: Metadata{Product: Product{Name: "memscope", VendorName: "memscope", Version: c.Version}, Version: SchemaVersion, LogName: c.Source, TenantUID: c.Tenant},
		FindingInfo: FindingInfo{UID: hex.EncodeToString(uid[:16]), Title: title, Desc: f.Message,
			Types: []string{string(f.Code), string(f.Family)}},
		Unmapped: unmapped,
	}
}

// severity maps memscope's three severities onto OCSF's severity_id
// enumeration (base_event: 1 Informational, 3 Medium, 4 High).
func severity(s finding.Severity) (int, string) {
	switch s {
	case finding.SevError:
		return 4, "High"
	case finding.SevWarning:
		return 3, "Medium"
	case finding.SevInfo:
		return 1, "Informational"
	}
	return 0, "Unknown"
}
